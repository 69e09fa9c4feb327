// INTERNAL to core/remote: the state RemoteTier's two source files share (remote_tier.cpp: the
// compile flow's fetch, publish and lock; remote_admin.cpp: list, gc, verify for `cache`).
#pragma once

#include "core/remote/redis_client.h"
#include "core/remote/remote_tier.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fxs::remote {

struct RemoteTier::Impl {
    RemoteOptions options;
    RedisUrl url;
    std::string urlText;
    std::optional<std::string> teamKey;
    std::unique_ptr<RedisClient> client; // null or broken: offline
    std::vector<std::string> warnings;
    std::string lockHolder; // this process in the build locks it signs (detail::lockHolderId)
    std::map<std::string, std::string> heldLocks; // Redis key -> the value this tier set

    bool online() const { return client && !client->broken(); }
    std::string keyOf(std::string_view kind, const std::string& cacheKey) const
    {
        return options.prefix + std::string(kind) + ":" + cacheKey;
    }
    void warnOnce(std::string text)
    {
        if (std::find(warnings.begin(), warnings.end(), text) == warnings.end()) {
            warnings.push_back(std::move(text));
        }
    }
    // Records a failed command: an I/O error or timeout turns the tier offline (said once);
    // a server error is said once and the tier stays online.
    void failed(const Error& e)
    {
        if (e.code == ErrorCode::Io) {
            client.reset();
            warnOnce(urlText + ": " + e.message + "; using the local cache only");
        } else {
            warnOnce(urlText + ": " + e.message);
        }
    }
    Error offlineError() const
    {
        return makeError(ErrorCode::Io, "the remote cache is not reachable", urlText);
    }
};

} // namespace fxs::remote
