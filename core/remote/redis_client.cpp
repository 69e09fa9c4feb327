#include "core/remote/redis_client.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <csignal>
#include <ctime>
#include <pthread.h>

namespace fxs::remote {
namespace {

timeval toTimeval(int ms)
{
    timeval tv{};
    tv.tv_sec = ms / 1000;
    tv.tv_usec = (ms % 1000) * 1000;
    return tv;
}

// hiredis writes with write(2): a server that went away raises SIGPIPE, whose default action
// ends the process. Blocked on this thread for the command; one that arrived is consumed
// before the mask is restored (libcurl's approach), so the caller's handlers never see it.
class SigpipeGuard {
public:
    SigpipeGuard()
    {
        sigemptyset(&m_pipe);
        sigaddset(&m_pipe, SIGPIPE);
        sigset_t pending;
        sigpending(&pending);
        m_wasPending = sigismember(&pending, SIGPIPE) == 1;
        pthread_sigmask(SIG_BLOCK, &m_pipe, &m_old);
    }
    ~SigpipeGuard()
    {
        sigset_t pending;
        sigpending(&pending);
        if (!m_wasPending && sigismember(&pending, SIGPIPE) == 1) {
            const timespec zero{};
            (void)sigtimedwait(&m_pipe, nullptr, &zero);
        }
        pthread_sigmask(SIG_SETMASK, &m_old, nullptr);
    }
    SigpipeGuard(const SigpipeGuard&) = delete;
    SigpipeGuard& operator=(const SigpipeGuard&) = delete;

private:
    sigset_t m_pipe{};
    sigset_t m_old{};
    bool m_wasPending = false;
};

RedisReply convert(const redisReply* r)
{
    RedisReply out;
    switch (r->type) {
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
        out.type = r->type == REDIS_REPLY_STRING ? RedisReply::Type::String
                                                 : RedisReply::Type::Status;
        out.text.assign(r->str, r->len);
        break;
    case REDIS_REPLY_INTEGER:
        out.type = RedisReply::Type::Integer;
        out.integer = r->integer;
        break;
    case REDIS_REPLY_ARRAY:
        out.type = RedisReply::Type::Array;
        out.elements.reserve(r->elements);
        for (std::size_t i = 0; i < r->elements; ++i) {
            out.elements.push_back(convert(r->element[i]));
        }
        break;
    default:
        break;
    }
    return out;
}

Error unexpected(const RedisUrl& url, std::string_view what)
{
    return makeError(ErrorCode::Runtime, "unexpected reply from Redis to " + std::string(what),
                     url.text());
}

} // namespace

struct RedisClient::Impl {
    redisContext* ctx = nullptr;
    ~Impl()
    {
        if (ctx) {
            redisFree(ctx);
        }
    }
};

RedisClient::RedisClient(RedisUrl url, std::unique_ptr<Impl> impl)
    : m_url(std::move(url)), m_impl(std::move(impl))
{
}

RedisClient::~RedisClient() = default;

Result<std::unique_ptr<RedisClient>> RedisClient::connect(const RedisUrl& url,
                                                          const RedisTimeouts& timeouts)
{
    auto impl = std::make_unique<Impl>();
    // The timeout bounds the TCP connect; a host name is resolved before it (getaddrinfo), so
    // teams whose resolver may hang give an address.
    impl->ctx = redisConnectWithTimeout(url.host.c_str(), url.port, toTimeval(timeouts.connectMs));
    if (!impl->ctx) {
        return makeError(ErrorCode::Io, "cannot allocate a Redis connection", url.text());
    }
    if (impl->ctx->err) {
        return makeError(ErrorCode::Io, std::string("cannot connect: ") + impl->ctx->errstr,
                         url.text());
    }
    // The connect timeout also bounds SELECT; the command timeout applies afterwards.
    redisSetTimeout(impl->ctx, toTimeval(timeouts.connectMs));
    std::unique_ptr<RedisClient> client(new RedisClient(url, std::move(impl)));
    if (url.db != 0) {
        const std::string db = std::to_string(url.db);
        auto r = client->command({"SELECT", db});
        if (!r) {
            return r.error();
        }
    }
    redisSetTimeout(client->m_impl->ctx, toTimeval(timeouts.commandMs));
    return client;
}

Result<RedisReply> RedisClient::command(const std::vector<std::string_view>& args)
{
    const std::string name = args.empty() ? std::string() : std::string(args.front());
    if (m_broken) {
        return makeError(ErrorCode::Io, "the connection to Redis failed earlier", m_url.text());
    }
    std::vector<const char*> argv;
    std::vector<std::size_t> lens;
    for (auto a : args) {
        argv.push_back(a.data());
        lens.push_back(a.size());
    }
    redisReply* raw = nullptr;
    {
        SigpipeGuard guard;
        raw = static_cast<redisReply*>(redisCommandArgv(m_impl->ctx, static_cast<int>(argv.size()),
                                                        argv.data(), lens.data()));
    }
    if (!raw) {
        m_broken = true;
        const std::string why = m_impl->ctx->errstr[0] ? m_impl->ctx->errstr : "no reply";
        return makeError(ErrorCode::Io, name + " failed: " + why, m_url.text());
    }
    std::unique_ptr<redisReply, void (*)(void*)> reply(raw, freeReplyObject);
    if (raw->type == REDIS_REPLY_ERROR) {
        return makeError(ErrorCode::Runtime,
                         name + ": Redis answered " + std::string(raw->str, raw->len),
                         m_url.text());
    }
    return convert(raw);
}

Result<std::optional<std::string>> RedisClient::get(std::string_view key)
{
    auto r = command({"GET", key});
    if (!r) {
        return r.error();
    }
    if (r->type == RedisReply::Type::Nil) {
        return std::optional<std::string>();
    }
    if (r->type != RedisReply::Type::String) {
        return unexpected(m_url, "GET");
    }
    return std::optional<std::string>(std::move(r->text));
}

Result<std::vector<std::optional<std::string>>>
RedisClient::mget(const std::vector<std::string>& keys)
{
    std::vector<std::optional<std::string>> out;
    if (keys.empty()) {
        return out;
    }
    std::vector<std::string_view> args{"MGET"};
    args.insert(args.end(), keys.begin(), keys.end());
    auto r = command(args);
    if (!r) {
        return r.error();
    }
    if (r->type != RedisReply::Type::Array || r->elements.size() != keys.size()) {
        return unexpected(m_url, "MGET");
    }
    for (auto& e : r->elements) {
        out.push_back(e.type == RedisReply::Type::String ? std::optional(std::move(e.text))
                                                         : std::nullopt);
    }
    return out;
}

Status RedisClient::set(std::string_view key, std::string_view value)
{
    auto r = command({"SET", key, value});
    return r ? Status() : Status(r.error());
}

Result<bool> RedisClient::setIfAbsent(std::string_view key, std::string_view value,
                                      std::int64_t ttlMs)
{
    const std::string ttl = std::to_string(ttlMs);
    auto r = command({"SET", key, value, "NX", "PX", ttl});
    if (!r) {
        return r.error();
    }
    return r->type == RedisReply::Type::Status;
}

namespace {
std::vector<std::string_view> pairArgs(std::string_view cmd,
                                       const std::vector<std::pair<std::string, std::string>>& p)
{
    std::vector<std::string_view> args{cmd};
    for (const auto& [k, v] : p) {
        args.push_back(k);
        args.push_back(v);
    }
    return args;
}
} // namespace

Status RedisClient::setAll(const std::vector<std::pair<std::string, std::string>>& pairs)
{
    auto r = command(pairArgs("MSET", pairs));
    return r ? Status() : Status(r.error());
}

Result<bool> RedisClient::setAllIfAbsent(
    const std::vector<std::pair<std::string, std::string>>& pairs)
{
    auto r = command(pairArgs("MSETNX", pairs));
    if (!r) {
        return r.error();
    }
    return r->type == RedisReply::Type::Integer && r->integer == 1;
}

Result<std::int64_t> RedisClient::del(const std::vector<std::string>& keys)
{
    if (keys.empty()) {
        return std::int64_t{0};
    }
    std::vector<std::string_view> args{"DEL"};
    args.insert(args.end(), keys.begin(), keys.end());
    auto r = command(args);
    if (!r) {
        return r.error();
    }
    return r->integer;
}

Result<std::vector<std::string>> RedisClient::keys(std::string_view pattern)
{
    std::vector<std::string> out;
    std::string cursor = "0";
    do {
        auto r = command({"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"});
        if (!r) {
            return r.error();
        }
        if (r->type != RedisReply::Type::Array || r->elements.size() != 2) {
            return unexpected(m_url, "SCAN");
        }
        cursor = r->elements[0].text;
        for (auto& k : r->elements[1].elements) {
            out.push_back(std::move(k.text));
        }
    } while (cursor != "0");
    // SCAN may return a key more than once (the table can be rehashed between calls).
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

} // namespace fxs::remote
