#include "core/util/json_parse.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <string>

namespace fxs {
namespace {

Error invalidJson(std::size_t byte, std::string what)
{
    Error e = makeError(ErrorCode::Parse, "not valid JSON (byte " + std::to_string(byte) + ")");
    e.expected = "JSON";
    e.found = std::move(what);
    return e;
}

template <class J>
Result<J> parseAs(std::string_view text, JsonLimits limits)
{
    if (auto nesting = checkJsonNesting(text, limits); !nesting.ok()) {
        return nesting.error();
    }
    try {
        return J::parse(text.begin(), text.end());
    } catch (const typename J::parse_error& ex) {
        return invalidJson(ex.byte, ex.what());
    } catch (const typename J::exception& ex) { // nlohmann throws parse_error only; be safe
        Error e = makeError(ErrorCode::Parse, "not valid JSON");
        e.found = ex.what();
        return e;
    }
}

// nlohmann's SAX interface that keeps nothing: only the first error (no DOM, no exception).
struct Validator : nlohmann::json_sax<nlohmann::json> {
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t&) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t byte, const std::string&,
                     const nlohmann::detail::exception& ex) override
    {
        error = invalidJson(byte, ex.what());
        return false;
    }
    std::optional<Error> error;
};

template <class J>
J orDiscarded(std::string_view text, JsonLimits limits)
{
    auto parsed = parseAs<J>(text, limits);
    return parsed.ok() ? std::move(parsed).value() : J(J::value_t::discarded);
}

} // namespace

std::optional<std::size_t> findDeepJsonNesting(std::string_view text, int maxDepth)
{
    int depth = 0;
    const char* const begin = text.data();
    const char* const end = begin + text.size();
    for (const char* p = begin; p < end; ++p) {
        const char c = *p;
        if (c == '"') { // skip the string: memchr to each quote, escaped ones are inside it
            for (++p;; ++p) {
                const auto left = static_cast<std::size_t>(end - p);
                p = static_cast<const char*>(std::memchr(p, '"', left));
                if (p == nullptr) {
                    return std::nullopt; // an unterminated string: the parser's to report
                }
                const char* q = p;
                while (q > begin && q[-1] == '\\') {
                    --q;
                }
                if ((p - q) % 2 == 0) {
                    break; // an even run of backslashes escapes only itself
                }
            }
            continue;
        }
        const std::size_t i = static_cast<std::size_t>(p - begin);
        if (c == '[' || c == '{') {
            if (++depth > maxDepth) {
                return i;
            }
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth; // a stray closer is the parser's to report
        }
    }
    return std::nullopt;
}

Status checkJsonNesting(std::string_view text, JsonLimits limits)
{
    if (const auto at = findDeepJsonNesting(text, limits.maxDepth)) {
        Error e = makeError(ErrorCode::Parse, "JSON nested deeper than " +
                                                  std::to_string(limits.maxDepth) +
                                                  " levels at byte " + std::to_string(*at));
        e.expected = "at most " + std::to_string(limits.maxDepth) + " nested arrays and objects";
        e.found = std::string(text.substr(*at, 24)) + (text.size() > *at + 24 ? "..." : "");
        return e;
    }
    return {};
}

Status validateJson(std::string_view text, JsonLimits limits)
{
    if (auto nesting = checkJsonNesting(text, limits); !nesting.ok()) {
        return nesting;
    }
    Validator v;
    if (!nlohmann::json::sax_parse(text.begin(), text.end(), &v) && v.error) {
        return *v.error;
    }
    return {};
}

Result<nlohmann::json> parseJson(std::string_view text, JsonLimits limits)
{
    return parseAs<nlohmann::json>(text, limits);
}

Result<nlohmann::ordered_json> parseOrderedJson(std::string_view text, JsonLimits limits)
{
    return parseAs<nlohmann::ordered_json>(text, limits);
}

nlohmann::json parseJsonOrDiscarded(std::string_view text, JsonLimits limits)
{
    return orDiscarded<nlohmann::json>(text, limits);
}

nlohmann::ordered_json parseOrderedJsonOrDiscarded(std::string_view text, JsonLimits limits)
{
    return orDiscarded<nlohmann::ordered_json>(text, limits);
}

} // namespace fxs
