#include "core/util/json_parse.h"

#include <nlohmann/json.hpp>

#include <string>

namespace fxs {
namespace {

template <class J>
Result<J> parseAs(std::string_view text, JsonLimits limits)
{
    if (const auto at = findDeepJsonNesting(text, limits.maxDepth)) {
        Error e = makeError(ErrorCode::Parse, "JSON nested deeper than " +
                                                  std::to_string(limits.maxDepth) +
                                                  " levels at byte " + std::to_string(*at));
        e.expected = "at most " + std::to_string(limits.maxDepth) + " nested arrays and objects";
        e.found = std::string(text.substr(*at, 24)) + (text.size() > *at + 24 ? "..." : "");
        return e;
    }
    try {
        return J::parse(text.begin(), text.end());
    } catch (const typename J::parse_error& ex) {
        Error e =
            makeError(ErrorCode::Parse, "not valid JSON (byte " + std::to_string(ex.byte) + ")");
        e.expected = "JSON";
        e.found = ex.what();
        return e;
    } catch (const typename J::exception& ex) { // nlohmann throws parse_error only; be safe
        Error e = makeError(ErrorCode::Parse, "not valid JSON");
        e.found = ex.what();
        return e;
    }
}

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
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            i += c == '\\' ? 1 : 0; // the escaped character cannot end the string
            inString = c != '"';
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > maxDepth) {
                return i;
            }
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth; // a stray closer is the parser's to report
        }
    }
    return std::nullopt;
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
