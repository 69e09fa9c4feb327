// A small RAII client for one Redis connection over hiredis (blocking, one command at a time):
// connect with a timeout, a timeout on every command, typed replies, and a connection that
// stays broken after an I/O error or timeout (the caller decides whether to reconnect). Not
// thread-safe: one client per thread. Not the cache tier's layout (remote_tier.h).
#pragma once

#include "core/remote/redis_url.h"
#include "core/util/result.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fxs::remote {

struct RedisTimeouts {
    int connectMs = 100;  // TCP connect (and SELECT)
    int commandMs = 1000; // each command: send and reply
};

// One reply, as Redis sent it.
struct RedisReply {
    enum class Type : std::uint8_t { Nil, String, Status, Integer, Array };
    Type type = Type::Nil;
    std::string text;                // String and Status
    std::int64_t integer = 0;        // Integer
    std::vector<RedisReply> elements; // Array
};

class RedisClient {
public:
    // Connects (TCP, TCP_NODELAY) and selects the URL's database. Error::Io naming the URL when
    // the server cannot be reached within connectMs or refuses.
    static Result<std::unique_ptr<RedisClient>> connect(const RedisUrl& url,
                                                        const RedisTimeouts& timeouts = {});
    ~RedisClient();
    RedisClient(const RedisClient&) = delete;
    RedisClient& operator=(const RedisClient&) = delete;

    const RedisUrl& url() const { return m_url; }
    // True after an I/O error or a timeout: every later command fails at once with Error::Io.
    bool broken() const { return m_broken; }

    // Sends one command (binary-safe arguments). Error::Io: the connection failed or timed
    // out (the client is broken from then on); Error::Runtime: the server answered an error.
    // SIGPIPE from a server that went away is kept from the process.
    Result<RedisReply> command(const std::vector<std::string_view>& args);

    Result<std::optional<std::string>> get(std::string_view key);
    Result<std::vector<std::optional<std::string>>> mget(const std::vector<std::string>& keys);
    Status set(std::string_view key, std::string_view value);
    // SET key value NX PX ttlMs: true when this call created the key.
    Result<bool> setIfAbsent(std::string_view key, std::string_view value, std::int64_t ttlMs);
    // MSET / MSETNX (all or nothing): false when MSETNX found one of the keys.
    Status setAll(const std::vector<std::pair<std::string, std::string>>& pairs);
    Result<bool> setAllIfAbsent(const std::vector<std::pair<std::string, std::string>>& pairs);
    Result<std::int64_t> del(const std::vector<std::string>& keys);
    // Every key matching a glob pattern (SCAN, so the server is never blocked).
    Result<std::vector<std::string>> keys(std::string_view pattern);

private:
    struct Impl;
    RedisClient(RedisUrl url, std::unique_ptr<Impl> impl);
    RedisUrl m_url;
    std::unique_ptr<Impl> m_impl;
    bool m_broken = false;
};

} // namespace fxs::remote
