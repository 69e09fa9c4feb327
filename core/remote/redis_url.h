// Where the remote cache tier lives: `redis://host:port[/db]` parsed into its parts, with an
// error that says what was expected where the text does not fit. Knows nothing of sockets
// (redis_client.h) or of what is stored (remote_tier.h).
#pragma once

#include "core/util/result.h"

#include <string>
#include <string_view>

namespace fxs::remote {

struct RedisUrl {
    std::string host;
    int port = 6379;
    int db = 0;
    // "redis://host:port/db" (the db left out when 0): what headlines and warnings print.
    std::string text() const;
};

// Accepts redis://host[:port][/db] (host: a name, an IPv4 address or [IPv6]; port 1-65535;
// db a decimal number >= 0). Error::Parse naming the part, what was expected and what was
// found; passwords (redis://user:pass@...) and other schemes are refused.
Result<RedisUrl> parseRedisUrl(std::string_view text);

} // namespace fxs::remote
