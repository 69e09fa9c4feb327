#include "core/remote/redis_url.h"

#include <charconv>

namespace fxs::remote {
namespace {

constexpr std::string_view kScheme = "redis://";

Error urlError(std::string_view url, std::string expected, std::string_view found)
{
    Error e = makeError(ErrorCode::Parse, "not a Redis URL (redis://host:port[/db])",
                        std::string(url));
    e.expected = std::move(expected);
    e.found = found.empty() ? "nothing" : std::string(found);
    return e;
}

// A decimal number within [lo, hi]; false otherwise (also on trailing characters).
bool parseNumber(std::string_view s, int lo, int hi, int& out)
{
    if (s.empty()) {
        return false;
    }
    const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size() && out >= lo && out <= hi;
}

// host[:port] or [v6][:port] into host and port text (empty: the default port).
Status splitHostPort(std::string_view url, std::string_view rest, std::string& host,
                     std::string_view& portText)
{
    if (!rest.empty() && rest.front() == '[') {
        const auto close = rest.find(']');
        if (close == std::string_view::npos) {
            return urlError(url, "']' closing the IPv6 address", rest);
        }
        host = std::string(rest.substr(1, close - 1));
        rest = rest.substr(close + 1);
        if (!rest.empty() && rest.front() != ':') {
            return urlError(url, "':' and a port after the IPv6 address", rest);
        }
        portText = rest.empty() ? std::string_view() : rest.substr(1);
        return {};
    }
    const auto colon = rest.find(':');
    host = std::string(rest.substr(0, colon));
    portText = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    if (colon != std::string_view::npos && portText.empty()) {
        return urlError(url, "a port after ':'", portText);
    }
    return {};
}

} // namespace

std::string RedisUrl::text() const
{
    const bool v6 = host.find(':') != std::string::npos;
    std::string s = std::string(kScheme) + (v6 ? "[" + host + "]" : host) + ":" +
                    std::to_string(port);
    return db == 0 ? s : s + "/" + std::to_string(db);
}

Result<RedisUrl> parseRedisUrl(std::string_view text)
{
    if (text.substr(0, kScheme.size()) != kScheme) {
        return urlError(text, "the scheme redis://", text.substr(0, text.find(':')));
    }
    std::string_view rest = text.substr(kScheme.size());
    RedisUrl url;
    if (const auto slash = rest.find('/'); slash != std::string_view::npos) {
        if (!parseNumber(rest.substr(slash + 1), 0, 1 << 20, url.db)) {
            return urlError(text, "a database number after '/'", rest.substr(slash + 1));
        }
        rest = rest.substr(0, slash);
    }
    if (rest.find('@') != std::string_view::npos) {
        return urlError(text, "host:port without credentials", rest);
    }
    std::string_view portText;
    if (Status s = splitHostPort(text, rest, url.host, portText); !s) {
        return s.error();
    }
    if (url.host.empty()) {
        return urlError(text, "a host name or address", url.host);
    }
    if (!portText.empty() && !parseNumber(portText, 1, 65535, url.port)) {
        return urlError(text, "a port number 1-65535", portText);
    }
    return url;
}

} // namespace fxs::remote
