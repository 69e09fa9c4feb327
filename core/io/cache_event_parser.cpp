#include "core/io/cache_event_parser.h"

#include "core/util/strings.h"

namespace fxs::io::detail {

using model::CacheKind;
using model::CacheState;

std::optional<CacheState> cacheStateFromText(std::string_view text)
{
    if (text == "hit") {
        return CacheState::Hit;
    }
    if (text == "miss") {
        return CacheState::Miss;
    }
    if (text == "bypass") {
        return CacheState::Bypass;
    }
    if (text == "disabled") {
        return CacheState::Disabled;
    }
    return std::nullopt;
}

std::optional<CacheEventName> cacheEventName(std::string_view name)
{
    struct Prefix {
        std::string_view text;
        CacheKind cache;
    };
    static constexpr Prefix kPrefixes[] = {
        {"fx_graph_cache_", CacheKind::FxGraph},
        {"aotautograd_cache_", CacheKind::AotAutograd},
        {"autograd_cache_", CacheKind::AotAutograd}, // chromium event names
    };
    for (const auto& p : kPrefixes) {
        if (startsWith(name, p.text)) {
            const auto state = cacheStateFromText(name.substr(p.text.size()));
            // The AOTAutograd cache has no "disabled" event.
            if (!state || (p.cache == CacheKind::AotAutograd && *state == CacheState::Disabled)) {
                return std::nullopt;
            }
            return CacheEventName{p.cache, *state};
        }
    }
    return std::nullopt;
}

bool isReadableValue(std::string_view value)
{
    for (std::size_t i = 0; i < value.size(); ++i) {
        const auto c = static_cast<unsigned char>(value[i]);
        if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') {
            return false;
        }
        // U+FFFD (EF BF BD): what Python wrote for bytes that were not text.
        if (c == 0xEF && value.substr(i, 3) == "\xEF\xBF\xBD") {
            return false;
        }
    }
    return true;
}

namespace {

bool isNameChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.';
}

// "name[index]: value" or "name: value" (the value may be empty: "cache_key_tag: ").
bool parseNameAndValue(std::string_view rest, model::KeyComponent& out)
{
    std::size_t i = 0;
    while (i < rest.size() && isNameChar(rest[i])) {
        ++i;
    }
    if (i == 0) {
        return false;
    }
    out.family.assign(rest.substr(0, i));
    std::size_t colon = i;
    if (i < rest.size() && rest[i] == '[') {
        const std::size_t close = rest.find("]:", i + 1);
        if (close == std::string_view::npos) {
            return false;
        }
        out.index.assign(rest.substr(i + 1, close - i - 1));
        colon = close + 1;
    }
    if (colon >= rest.size() || rest[colon] != ':') {
        return false;
    }
    out.name.assign(rest.substr(0, colon));
    std::size_t valueStart = colon + 1;
    if (valueStart < rest.size() && rest[valueStart] == ' ') {
        ++valueStart;
    }
    out.value.assign(rest.substr(valueStart));
    return true;
}

} // namespace

bool parseKeyComponent(std::string_view line, model::KeyComponent& out)
{
    out = {};
    if (startsWith(line, "[")) {
        const std::size_t close = line.find("] ");
        if (close != std::string_view::npos) {
            out.digest.assign(line.substr(1, close - 1));
            if (parseNameAndValue(line.substr(close + 2), out)) {
                out.readable = isReadableValue(out.value);
                return true;
            }
        }
    }
    out = {};
    out.value.assign(line);
    out.readable = isReadableValue(out.value);
    return false;
}

} // namespace fxs::io::detail
