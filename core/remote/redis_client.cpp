#include "core/remote/redis_client.h"
#include "core/util/strings.h"

#include <hiredis/hiredis.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <ctime>
#include <mutex>
#include <pthread.h>
#include <thread>

namespace fxs::remote {
namespace detail {

// hiredis builds replies through these (reader->fn): each wraps hiredis's own and refuses, by
// returning nullptr (hiredis's out-of-memory path), once a reply holds more values than the
// budget allows; an array's declared length counts before its element table is allocated.
struct ReplyBudget {
    const redisReplyObjectFunctions* own = nullptr;
    std::size_t valuesLeft = 0;
    bool exceeded = false;
    bool take(std::size_t n)
    {
        if (exceeded || n > valuesLeft) {
            exceeded = true;
            return false;
        }
        valuesLeft -= n;
        return true;
    }
};

} // namespace detail

namespace {

using Clock = std::chrono::steady_clock;

// A SCAN that has not reached cursor 0 after this many rounds or keys is not finishing (a
// server that returns the same cursor or the same keys forever): 1000 keys a round.
constexpr int kMaxScanRounds = 10000;
constexpr std::size_t kMaxScanKeys = std::size_t(1) << 20;

// Waits until fd is ready for events or the deadline passes (false).
bool waitReady(int fd, short events, Clock::time_point deadline)
{
    for (;;) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) {
            return false;
        }
        pollfd p{fd, events, 0};
        const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, INT_MAX)));
        if (r > 0) {
            return true; // ready, or an error the next read or write reports
        }
        if (r < 0 && errno != EINTR) {
            return false;
        }
    }
}

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

detail::ReplyBudget& budgetOf(const redisReadTask* task)
{
    return *static_cast<detail::ReplyBudget*>(task->privdata);
}

void* budgetedString(const redisReadTask* task, char* text, std::size_t len)
{
    auto& b = budgetOf(task);
    return b.take(1) ? b.own->createString(task, text, len) : nullptr;
}
void* budgetedArray(const redisReadTask* task, int elements)
{
    auto& b = budgetOf(task);
    return b.take(1 + static_cast<std::size_t>(std::max(elements, 0)))
               ? b.own->createArray(task, elements)
               : nullptr;
}
void* budgetedInteger(const redisReadTask* task, long long value)
{
    auto& b = budgetOf(task);
    return b.take(1) ? b.own->createInteger(task, value) : nullptr;
}
void* budgetedNil(const redisReadTask* task)
{
    auto& b = budgetOf(task);
    return b.take(1) ? b.own->createNil(task) : nullptr;
}
void freeOwn(void* reply) { freeReplyObject(reply); }

redisReplyObjectFunctions kBudgetedFunctions{budgetedString, budgetedArray, budgetedInteger,
                                             budgetedNil, freeOwn};

Error unexpected(const RedisUrl& url, std::string_view what)
{
    return makeError(ErrorCode::Runtime, "unexpected reply from Redis to " + std::string(what),
                     url.text());
}

} // namespace

struct RedisClient::Impl {
    redisContext* ctx = nullptr;
    RedisTimeouts timeouts;
    RedisLimits limits;
    detail::ReplyBudget budget;
    // Sends one command and reads its whole reply before the deadline, through the socket in
    // non-blocking mode: a server that trickles its reply a byte at a time cannot stretch the
    // command past the deadline (a per-read timeout would restart with each byte). nullptr
    // with `why` set on a failure or timeout.
    redisReply* roundTrip(const std::vector<std::string_view>& args, int budgetMs,
                          std::string& why);
    // Reads what the socket holds into hiredis's reader, counting toward maxReplyBytes.
    bool receive(std::size_t& received, std::string& why);
    ~Impl()
    {
        if (ctx) {
            redisFree(ctx);
        }
    }
};

redisReply* RedisClient::Impl::roundTrip(const std::vector<std::string_view>& args, int budgetMs,
                                         std::string& why)
{
    const auto deadline = Clock::now() + std::chrono::milliseconds(budgetMs);
    std::vector<const char*> argv;
    std::vector<std::size_t> lens;
    for (auto a : args) {
        argv.push_back(a.data());
        lens.push_back(a.size());
    }
    if (redisAppendCommandArgv(ctx, static_cast<int>(argv.size()), argv.data(), lens.data()) !=
        REDIS_OK) {
        why = ctx->errstr[0] ? ctx->errstr : "cannot format the command";
        return nullptr;
    }
    const std::string timedOut =
        "no complete reply within " + std::to_string(budgetMs) + " ms (timeout)";
    SigpipeGuard guard;
    for (int done = 0; !done;) {
        if (redisBufferWrite(ctx, &done) != REDIS_OK) {
            why = ctx->errstr[0] ? ctx->errstr : "cannot send";
            return nullptr;
        }
        if (!done && !waitReady(ctx->fd, POLLOUT, deadline)) {
            why = timedOut;
            return nullptr;
        }
    }
    budget.valuesLeft = limits.maxReplyValues;
    budget.exceeded = false;
    std::size_t received = 0;
    for (;;) {
        void* reply = nullptr;
        if (redisGetReplyFromReader(ctx, &reply) != REDIS_OK) {
            why = budget.exceeded ? "a reply of more than " +
                                        std::to_string(limits.maxReplyValues) + " values (limit)"
                  : ctx->errstr[0] ? ctx->errstr
                                   : "a reply that is not Redis protocol";
            return nullptr;
        }
        if (reply) {
            return static_cast<redisReply*>(reply);
        }
        if (!waitReady(ctx->fd, POLLIN, deadline)) {
            why = timedOut;
            return nullptr;
        }
        if (!receive(received, why)) {
            return nullptr;
        }
    }
}

bool RedisClient::Impl::receive(std::size_t& received, std::string& why)
{
    char chunk[16384];
    const ssize_t n = ::recv(ctx->fd, chunk, sizeof chunk, 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        return true;
    }
    if (n <= 0) {
        why = n == 0 ? "the server closed the connection" : std::strerror(errno);
        return false;
    }
    received += static_cast<std::size_t>(n);
    if (received > limits.maxReplyBytes) {
        why = "a reply of more than " + formatBytes(limits.maxReplyBytes) + " (limit)";
        return false;
    }
    if (redisReaderFeed(ctx->reader, chunk, static_cast<std::size_t>(n)) != REDIS_OK) {
        why = "cannot buffer the reply";
        return false;
    }
    return true;
}

RedisClient::RedisClient(RedisUrl url, std::unique_ptr<Impl> impl)
    : m_url(std::move(url)), m_impl(std::move(impl))
{
}

RedisClient::~RedisClient() = default;

Result<std::unique_ptr<RedisClient>> RedisClient::connect(const RedisUrl& url,
                                                          const RedisTimeouts& timeouts,
                                                          const RedisLimits& limits)
{
    auto impl = std::make_unique<Impl>();
    // Resolving a name has a deadline of its own; the TCP connect to the address, connectMs.
    auto address = detail::resolveWithin(url.host, timeouts.resolveMs);
    if (!address) {
        Error e = address.error();
        e.where = url.text();
        return e;
    }
    impl->ctx =
        redisConnectWithTimeout(address->c_str(), url.port, toTimeval(timeouts.connectMs));
    if (!impl->ctx) {
        return makeError(ErrorCode::Io, "cannot allocate a Redis connection", url.text());
    }
    if (impl->ctx->err) {
        return makeError(ErrorCode::Io, std::string("cannot connect: ") + impl->ctx->errstr,
                         url.text());
    }
    // From here every command runs against a deadline of its own (Impl::roundTrip), on a
    // non-blocking socket; hiredis's blocking reads are not used again.
    const int flags = ::fcntl(impl->ctx->fd, F_GETFL);
    if (flags < 0 || ::fcntl(impl->ctx->fd, F_SETFL, flags | O_NONBLOCK) != 0) {
        return makeError(ErrorCode::Io, "cannot configure the connection", url.text());
    }
    impl->ctx->flags &= ~REDIS_BLOCK;
    impl->timeouts = timeouts;
    impl->limits = limits;
    impl->budget.own = impl->ctx->reader->fn;
    impl->ctx->reader->fn = &kBudgetedFunctions;
    impl->ctx->reader->privdata = &impl->budget;
    std::unique_ptr<RedisClient> client(new RedisClient(url, std::move(impl)));
    if (url.db != 0) {
        // The connect timeout also bounds SELECT.
        const std::string db = std::to_string(url.db);
        auto r = client->run({"SELECT", db}, timeouts.connectMs);
        if (!r) {
            return r.error();
        }
    }
    return client;
}

Result<RedisReply> RedisClient::command(const std::vector<std::string_view>& args)
{
    return run(args, m_impl->timeouts.commandMs);
}

Result<RedisReply> RedisClient::run(const std::vector<std::string_view>& args, int budgetMs)
{
    const std::string name = args.empty() ? std::string() : std::string(args.front());
    if (m_broken) {
        return makeError(ErrorCode::Io, "the connection to Redis failed earlier", m_url.text());
    }
    std::string why;
    redisReply* raw = m_impl->roundTrip(args, budgetMs, why);
    if (!raw) {
        m_broken = true;
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
    const auto deadline = Clock::now() + std::chrono::milliseconds(m_impl->timeouts.scanMs);
    int rounds = 0;
    do {
        if (++rounds > kMaxScanRounds || out.size() > kMaxScanKeys || Clock::now() >= deadline) {
            Error e = makeError(ErrorCode::Runtime,
                                "SCAN did not finish: the server's cursor did not come back to "
                                "0 (a server that never ends the iteration?)",
                                m_url.text());
            e.expected = "at most " + std::to_string(kMaxScanRounds) + " rounds, " +
                         std::to_string(kMaxScanKeys) + " keys, " +
                         std::to_string(m_impl->timeouts.scanMs) + " ms";
            e.found = std::to_string(rounds - 1) + " rounds, " + std::to_string(out.size()) +
                      " keys";
            return e;
        }
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

namespace detail {
namespace {

// One lookup's answer, shared with its thread: the thread may outlive the caller's wait.
struct Lookup {
    std::mutex mutex;
    std::condition_variable ready;
    bool done = false;
    int rc = 0;
    std::string address;
};

// The first IPv4 address of a list, else its first address, as text.
std::string firstAddress(const addrinfo* list)
{
    const addrinfo* pick = nullptr;
    for (const addrinfo* a = list; a; a = a->ai_next) {
        if (a->ai_family == AF_INET || (!pick && a->ai_family == AF_INET6)) {
            pick = a;
            if (a->ai_family == AF_INET) {
                break;
            }
        }
    }
    char text[INET6_ADDRSTRLEN] = {};
    if (!pick) {
        return {};
    }
    const void* raw = pick->ai_family == AF_INET
                          ? static_cast<const void*>(
                                &reinterpret_cast<const sockaddr_in*>(pick->ai_addr)->sin_addr)
                          : static_cast<const void*>(
                                &reinterpret_cast<const sockaddr_in6*>(pick->ai_addr)->sin6_addr);
    return ::inet_ntop(pick->ai_family, raw, text, sizeof text) ? std::string(text) : "";
}

bool isNumeric(const std::string& host)
{
    unsigned char raw[sizeof(in6_addr)];
    return ::inet_pton(AF_INET, host.c_str(), raw) == 1 ||
           ::inet_pton(AF_INET6, host.c_str(), raw) == 1;
}

} // namespace

Result<std::string> resolveWithin(const std::string& host, int ms, Resolver resolver)
{
    if (isNumeric(host)) {
        return host;
    }
    auto lookup = std::make_shared<Lookup>();
    Resolver resolve = resolver ? resolver : ::getaddrinfo;
    std::thread([lookup, host, resolve] {
        addrinfo hints{};
        hints.ai_socktype = SOCK_STREAM;
        addrinfo* list = nullptr;
        const int rc = resolve(host.c_str(), nullptr, &hints, &list);
        std::string address = rc == 0 ? firstAddress(list) : std::string();
        if (list) {
            ::freeaddrinfo(list);
        }
        std::lock_guard lock(lookup->mutex);
        lookup->rc = rc;
        lookup->address = std::move(address);
        lookup->done = true;
        lookup->ready.notify_all();
    }).detach();
    std::unique_lock lock(lookup->mutex);
    if (!lookup->ready.wait_for(lock, std::chrono::milliseconds(ms),
                                [&] { return lookup->done; })) {
        return makeError(ErrorCode::Io,
                         "cannot resolve the host '" + host + "' within " + std::to_string(ms) +
                             " ms (timeout)",
                         host);
    }
    if (lookup->rc != 0 || lookup->address.empty()) {
        return makeError(ErrorCode::Io,
                         "cannot resolve the host '" + host + "': " +
                             (lookup->rc != 0 ? ::gai_strerror(lookup->rc) : "no IP address"),
                         host);
    }
    return lookup->address;
}

} // namespace detail

} // namespace fxs::remote
