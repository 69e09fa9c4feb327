// A small RAII client for one Redis connection over hiredis (one command at a time): connect
// with a timeout, a deadline for each whole command (send and complete reply, however slowly
// the server trickles it) and for each whole SCAN iteration, typed replies, and a connection
// that stays broken after an I/O error or timeout (the caller decides whether to reconnect).
// Not thread-safe: one client per thread. Not the cache tier's layout (remote_tier.h).
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

struct addrinfo; // <netdb.h>

namespace fxs::remote {

struct RedisTimeouts {
    int resolveMs = 1000; // resolving a host name (a numeric address needs none)
    int connectMs = 100;  // TCP connect, and SELECT's whole round trip
    int commandMs = 1000; // each command as a whole: sending it and reading its complete reply
    int scanMs = 20000;   // a whole SCAN iteration (keys()), all its rounds together
};

// What one reply may take, whatever the server declares or sends: bytes received for it (a bulk
// string of 2 GB arrives in full before it is parsed) and values in it (each array element,
// string, integer or nil; an array's declared length counts before anything is allocated).
struct RedisLimits {
    std::size_t maxReplyBytes = std::size_t(256) << 20;
    std::size_t maxReplyValues = std::size_t(1) << 20;
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
    // the host name cannot be resolved within resolveMs (a resolver that hangs is given up on),
    // the server cannot be reached within connectMs, or it refuses.
    static Result<std::unique_ptr<RedisClient>> connect(const RedisUrl& url,
                                                        const RedisTimeouts& timeouts = {},
                                                        const RedisLimits& limits = {});
    ~RedisClient();
    RedisClient(const RedisClient&) = delete;
    RedisClient& operator=(const RedisClient&) = delete;

    const RedisUrl& url() const { return m_url; }
    // True after an I/O error or a timeout: every later command fails at once with Error::Io.
    bool broken() const { return m_broken; }

    // Sends one command (binary-safe arguments) and reads its reply within commandMs, whole.
    // Error::Io: the connection failed, the deadline passed or the reply went over the limits
    // (the client is broken from then on); Error::Runtime: the server answered an error. SIGPIPE from a server that went away
    // is kept from the process.
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
    // Every key matching a glob pattern (SCAN, so the server is never blocked). Error::Runtime
    // when the iteration does not end within scanMs, 10000 rounds or 2^20 keys (a cursor that
    // never returns to 0).
    Result<std::vector<std::string>> keys(std::string_view pattern);

private:
    struct Impl;
    RedisClient(RedisUrl url, std::unique_ptr<Impl> impl);
    Result<RedisReply> run(const std::vector<std::string_view>& args, int budgetMs);
    RedisUrl m_url;
    std::unique_ptr<Impl> m_impl;
    bool m_broken = false;
};

namespace detail {

// getaddrinfo's signature: the real one, or a test's.
using Resolver = int (*)(const char*, const char*, const ::addrinfo*, ::addrinfo**);

// host as an address to connect to: a numeric one as it is, a name resolved on a thread of its
// own (IPv4 first) and given up on after ms. Error::Io "cannot resolve the host ..." when the
// resolver fails or has not answered by then (its thread finishes on its own).
Result<std::string> resolveWithin(const std::string& host, int ms, Resolver resolver = nullptr);

} // namespace detail

} // namespace fxs::remote
