#include "core/remote/remote_tier.h"

#include "core/remote/remote_tier_impl.h"
#include "core/remote/remote_value.h"
#include "core/remote/team_key.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace fxs::remote {
namespace {

using cache::Reason;

std::int64_t nowMs()
{
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

} // namespace

// Without a team key: the metadata only (the blob is never downloaded). NoKey when it exists.
static FetchResult fetchMetadataOnly(RemoteTier::Impl& impl, const std::string& key)
{
    FetchResult r;
    auto meta = impl.client->get(impl.keyOf("meta", key));
    if (!meta) {
        impl.failed(meta.error());
        r.state = FetchState::Unavailable;
        return r;
    }
    const auto split = *meta ? detail::splitMetadata(**meta) : std::nullopt;
    r.info = split ? detail::parseMetadata(split->text) : std::nullopt;
    if (r.info) {
        r.state = FetchState::NoKey;
        r.reason = Reason::MissRemoteNoKey;
        r.problem = "no team key: remote artifacts are never loaded";
    }
    return r;
}

RemoteTier::RemoteTier(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
RemoteTier::~RemoteTier() = default;

Result<std::unique_ptr<RemoteTier>> RemoteTier::open(const RemoteOptions& options)
{
    auto url = parseRedisUrl(options.url);
    if (!url) {
        return url.error();
    }
    auto impl = std::make_unique<Impl>();
    impl->options = options;
    impl->lockHolder = detail::lockHolderId();
    impl->url = *url;
    impl->urlText = url->text();
    if (options.teamKey) {
        impl->teamKey = options.teamKey;
    } else {
        auto key = teamKeyFromEnvironment();
        if (!key) {
            return key.error();
        }
        impl->teamKey = *key;
    }
    auto client = RedisClient::connect(*url, options.timeouts);
    if (client) {
        impl->client = std::move(*client);
    } else {
        impl->failed(client.error());
    }
    if (!impl->teamKey) {
        impl->warnOnce(impl->urlText +
                       ": no team key (FXSCOPE_CACHE_KEY or FXSCOPE_CACHE_KEY_FILE): remote "
                       "metadata is read, remote artifacts are never loaded and nothing is "
                       "written");
    }
    return std::unique_ptr<RemoteTier>(new RemoteTier(std::move(impl)));
}

const std::string& RemoteTier::url() const { return m_impl->urlText; }
bool RemoteTier::hasKey() const { return m_impl->teamKey.has_value(); }
bool RemoteTier::online() const { return m_impl->online(); }
const std::vector<std::string>& RemoteTier::warnings() const { return m_impl->warnings; }

FetchResult RemoteTier::fetch(const std::string& key)
{
    FetchResult r;
    if (!m_impl->online()) {
        r.state = FetchState::Unavailable;
        return r;
    }
    if (!m_impl->teamKey) {
        return fetchMetadataOnly(*m_impl, key);
    }
    auto values = m_impl->client->mget({m_impl->keyOf("meta", key), m_impl->keyOf("blob", key)});
    if (!values) {
        m_impl->failed(values.error());
        r.state = FetchState::Unavailable;
        return r;
    }
    if (!(*values)[0] && !(*values)[1]) {
        return r;
    }
    auto checked = detail::checkValue(key, m_impl->teamKey, (*values)[0], (*values)[1]);
    if (!checked.entry) {
        r.state = FetchState::Rejected;
        r.reason = checked.reason;
        r.problem = std::move(checked.problem);
        return r;
    }
    r.state = FetchState::Hit;
    r.info = checked.entry->info;
    r.entry = std::move(checked.entry);
    {
        auto t = m_impl->client->set(m_impl->keyOf("atime", key), std::to_string(nowMs()));
        if (!t) {
            m_impl->failed(t.error());
        }
    }
    return r;
}

bool RemoteTier::publish(const cache::EntryInfo& info, const cache::Artifact& artifact,
                         bool replace)
{
    if (!m_impl->teamKey || !m_impl->online()) {
        return false;
    }
    cache::EntryInfo e = info;
    const std::string blob = cache::serializeArtifact(artifact);
    e.blobSha256 = toHex(sha256(blob));
    e.blobBytes = static_cast<std::int64_t>(blob.size());
    e.soBytes = 0;
    e.sourceBytes = 0;
    for (const auto& f : artifact.files) {
        (cache::isSourceKind(f.kind) ? e.sourceBytes : e.soBytes) +=
            static_cast<std::int64_t>(f.bytes.size());
    }
    e.createdMs = e.createdMs ? e.createdMs : nowMs();
    e.lastHitMs = 0;
    e.hitCount = 0;
    const std::string text = detail::metadataText(e);
    const auto mac = detail::valueMac(*m_impl->teamKey, e.key, text, blob);
    const std::vector<std::pair<std::string, std::string>> pairs = {
        {m_impl->keyOf("meta", e.key), detail::joinMetadata(mac, text)},
        {m_impl->keyOf("blob", e.key), blob}};
    Result<bool> written = false;
    if (replace) {
        Status s = m_impl->client->setAll(pairs);
        written = s ? Result<bool>(true) : Result<bool>(s.error());
    } else {
        written = m_impl->client->setAllIfAbsent(pairs);
    }
    if (written && *written) {
        // The region's index, so that a miss reads only its region's entries.
        auto r = m_impl->client->command({"SADD", m_impl->keyOf("region", e.regionDigest), e.key});
        written = r ? written : Result<bool>(r.error());
    }
    if (!written) {
        m_impl->failed(written.error());
        return false;
    }
    return *written;
}

bool RemoteTier::tryLock(const std::string& key, std::int64_t ttlMs)
{
    if (!m_impl->teamKey || !m_impl->online()) {
        return false;
    }
    const std::string lockKey = m_impl->keyOf("lock", key);
    const std::string value =
        detail::lockValue(*m_impl->teamKey, lockKey, m_impl->lockHolder, nowMs() + ttlMs);
    auto r = m_impl->client->setIfAbsent(lockKey, value, ttlMs);
    if (!r) {
        m_impl->failed(r.error());
        return false;
    }
    if (*r) {
        m_impl->heldLocks[lockKey] = value;
    }
    return *r;
}

// Only a lock this tier took is deleted (one that expired and was taken by another process
// meanwhile is theirs).
void RemoteTier::unlock(const std::string& key)
{
    const std::string lockKey = m_impl->keyOf("lock", key);
    const auto mine = m_impl->heldLocks.find(lockKey);
    if (mine == m_impl->heldLocks.end()) {
        return;
    }
    const std::string value = mine->second;
    m_impl->heldLocks.erase(mine);
    if (!m_impl->online()) {
        return;
    }
    auto held = m_impl->client->get(lockKey);
    if (held && *held == value) {
        auto r = m_impl->client->del({lockKey});
        if (!r) {
            m_impl->failed(r.error());
        }
    } else if (!held) {
        m_impl->failed(held.error());
    }
}

FetchResult RemoteTier::fetchOrLock(const std::string& key, std::int64_t patienceMs,
                                    bool& locked)
{
    locked = false;
    FetchResult f = fetch(key);
    if (f.state != FetchState::Miss || !m_impl->teamKey) {
        return f;
    }
    if (!tryLock(key, patienceMs)) {
        // Another holder builds it: worth a short wait, never more (lockWaitMs), since whoever
        // can write to the server could otherwise hold every compile up.
        return waitFor(key, std::min(patienceMs, m_impl->options.lockWaitMs));
    }
    f = fetch(key);
    if (f.state == FetchState::Miss) {
        locked = true;
    } else {
        unlock(key);
    }
    return f;
}

FetchResult RemoteTier::waitFor(const std::string& key, std::int64_t timeoutMs)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    while (true) {
        FetchResult r = fetch(key);
        if (r.state != FetchState::Miss) {
            return r;
        }
        const std::string lockKey = m_impl->keyOf("lock", key);
        auto held = m_impl->client->get(lockKey);
        if (!held) {
            m_impl->failed(held.error());
            r.state = FetchState::Unavailable;
            return r;
        }
        // A lock without a valid signature of the team key (or without a key to check it) is
        // no lock: it is not waited on.
        const bool signedLock = *held && m_impl->teamKey &&
                                detail::validLock(*m_impl->teamKey, lockKey, **held, nowMs());
        if (!signedLock || std::chrono::steady_clock::now() >= deadline) {
            // The builder finished without publishing (its build failed) or takes too long.
            return fetch(key);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

} // namespace fxs::remote
