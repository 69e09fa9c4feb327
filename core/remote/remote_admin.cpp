// RemoteTier's maintenance side, for `fxscope-cli cache --remote`: listing, prefixes, removal,
// byte totals, gc and verify. Unlike the compile flow's calls these report errors (offline,
// server errors) instead of degrading.
#include "core/remote/remote_tier.h"

#include "core/remote/remote_tier_impl.h"
#include "core/remote/remote_value.h"

#include <algorithm>
#include <charconv>

namespace fxs::remote {
namespace {

constexpr std::size_t kBatch = 256; // keys per MGET

struct Row {
    cache::EntryInfo info;
    std::int64_t metaBytes = 0;
};

std::string cacheKeyOf(const std::string& redisKey, std::size_t prefixLen)
{
    return redisKey.substr(prefixLen);
}

// The parsed metadata and last access (atime) of these cache keys, in their order. Keys
// without metadata, and values that do not parse, are left out (verify reports the latter).
Result<std::vector<Row>> rowsOf(RemoteTier::Impl& impl, const std::vector<std::string>& keys)
{
    std::vector<Row> rows;
    for (std::size_t i = 0; i < keys.size(); i += kBatch) {
        std::vector<std::string> batch;
        for (std::size_t j = i; j < std::min(keys.size(), i + kBatch); ++j) {
            batch.push_back(impl.keyOf("meta", keys[j]));
            batch.push_back(impl.keyOf("atime", keys[j]));
        }
        auto values = impl.client->mget(batch);
        if (!values) {
            impl.failed(values.error());
            return values.error();
        }
        for (std::size_t j = 0; j + 1 < values->size(); j += 2) {
            const auto& meta = (*values)[j];
            const auto split = meta ? detail::splitMetadata(*meta) : std::nullopt;
            auto info = split ? detail::parseMetadata(split->text) : std::nullopt;
            if (!info) {
                continue;
            }
            if (const auto& atime = (*values)[j + 1]) {
                std::from_chars(atime->data(), atime->data() + atime->size(), info->lastHitMs);
            }
            rows.push_back({std::move(*info), static_cast<std::int64_t>(meta->size())});
        }
    }
    return rows;
}

// Every entry (SCAN of the metadata keys).
Result<std::vector<Row>> readRows(RemoteTier::Impl& impl)
{
    if (!impl.online()) {
        return impl.offlineError();
    }
    const std::string metaPrefix = impl.options.prefix + "meta:";
    auto keys = impl.client->keys(metaPrefix + "*");
    if (!keys) {
        impl.failed(keys.error());
        return keys.error();
    }
    for (auto& k : *keys) {
        k = cacheKeyOf(k, metaPrefix.size());
    }
    return rowsOf(impl, *keys);
}

} // namespace

Result<std::vector<cache::EntryInfo>> RemoteTier::list()
{
    auto rows = readRows(*m_impl);
    if (!rows) {
        return rows.error();
    }
    std::vector<cache::EntryInfo> out;
    for (auto& r : *rows) {
        out.push_back(std::move(r.info));
    }
    return out;
}

// Through the region's index set (publish adds to it), so a miss reads only its region's
// entries.
Result<std::vector<cache::EntryInfo>> RemoteTier::entriesOfRegion(const std::string& digest)
{
    if (!m_impl->online()) {
        return m_impl->offlineError();
    }
    auto members = m_impl->client->command({"SMEMBERS", m_impl->keyOf("region", digest)});
    if (!members) {
        m_impl->failed(members.error());
        return members.error();
    }
    std::vector<std::string> keys;
    for (auto& m : members->elements) {
        keys.push_back(std::move(m.text));
    }
    auto rows = rowsOf(*m_impl, keys);
    if (!rows) {
        return rows.error();
    }
    std::vector<cache::EntryInfo> out;
    for (auto& r : *rows) {
        if (r.info.regionDigest == digest) {
            out.push_back(std::move(r.info));
        }
    }
    return out;
}

Result<std::optional<cache::EntryInfo>> RemoteTier::info(const std::string& key)
{
    if (!m_impl->online()) {
        return m_impl->offlineError();
    }
    auto meta = m_impl->client->get(m_impl->keyOf("meta", key));
    if (!meta) {
        m_impl->failed(meta.error());
        return meta.error();
    }
    const auto split = *meta ? detail::splitMetadata(**meta) : std::nullopt;
    return split ? detail::parseMetadata(split->text) : std::nullopt;
}

Result<std::string> RemoteTier::resolvePrefix(const std::string& prefix)
{
    if (prefix.size() < 4 || prefix.find_first_not_of("0123456789abcdef") != std::string::npos) {
        return makeError(ErrorCode::Invalid, "a key prefix is at least 4 lower-case hex digits",
                         prefix);
    }
    if (!m_impl->online()) {
        return m_impl->offlineError();
    }
    const std::string metaPrefix = m_impl->options.prefix + "meta:";
    auto keys = m_impl->client->keys(metaPrefix + prefix + "*");
    if (!keys) {
        m_impl->failed(keys.error());
        return keys.error();
    }
    if (keys->size() != 1) {
        return makeError(ErrorCode::Invalid,
                         keys->empty() ? "no remote entry has this key prefix"
                                       : "the key prefix is ambiguous in the remote cache",
                         prefix);
    }
    return cacheKeyOf(keys->front(), metaPrefix.size());
}

Status RemoteTier::remove(const std::string& key)
{
    if (!m_impl->online()) {
        return m_impl->offlineError();
    }
    auto entry = info(key); // for its region's index set
    if (!entry) {
        return entry.error();
    }
    auto r = m_impl->client->del({m_impl->keyOf("meta", key), m_impl->keyOf("blob", key),
                                  m_impl->keyOf("atime", key)});
    if (!r) {
        m_impl->failed(r.error());
        return r.error();
    }
    if (*entry) {
        const std::string region = m_impl->keyOf("region", (*entry)->regionDigest);
        auto s = m_impl->client->command({"SREM", region, key});
        if (!s) {
            m_impl->failed(s.error());
            return s.error();
        }
    }
    return {};
}

Result<std::int64_t> RemoteTier::totalBytes()
{
    auto rows = readRows(*m_impl);
    if (!rows) {
        return rows.error();
    }
    std::int64_t total = 0;
    for (const auto& r : *rows) {
        total += r.metaBytes + r.info.blobBytes;
    }
    return total;
}

Result<cache::GcReport> RemoteTier::gc(std::int64_t maxBytes)
{
    auto rows = readRows(*m_impl);
    if (!rows) {
        return rows.error();
    }
    cache::GcReport report;
    for (const auto& r : *rows) {
        report.bytesBefore += r.metaBytes + r.info.blobBytes;
    }
    // Least recently used first: last hit, else creation.
    std::sort(rows->begin(), rows->end(), [](const Row& a, const Row& b) {
        return std::max(a.info.lastHitMs, a.info.createdMs) <
               std::max(b.info.lastHitMs, b.info.createdMs);
    });
    report.bytesAfter = report.bytesBefore;
    for (const auto& r : *rows) {
        if (report.bytesAfter <= maxBytes) {
            break;
        }
        if (Status s = remove(r.info.key); !s) {
            return s.error();
        }
        report.bytesAfter -= r.metaBytes + r.info.blobBytes;
        ++report.removed;
    }
    return report;
}

Result<cache::VerifyReport> RemoteTier::verify()
{
    if (!m_impl->online()) {
        return m_impl->offlineError();
    }
    const std::string metaPrefix = m_impl->options.prefix + "meta:";
    auto keys = m_impl->client->keys(metaPrefix + "*");
    if (!keys) {
        m_impl->failed(keys.error());
        return keys.error();
    }
    cache::VerifyReport report;
    for (const auto& redisKey : *keys) {
        const std::string key = cacheKeyOf(redisKey, metaPrefix.size());
        auto values = m_impl->client->mget({redisKey, m_impl->keyOf("blob", key)});
        if (!values) {
            m_impl->failed(values.error());
            return values.error();
        }
        ++report.checked;
        auto checked = detail::checkValue(key, m_impl->teamKey, (*values)[0], (*values)[1]);
        if (!checked.entry) {
            report.corrupt.emplace_back(key, std::move(checked.problem));
        }
    }
    report.integrity =
        m_impl->teamKey ? "ok" : "ok (checksums only: no team key, HMACs not checked)";
    return report;
}

} // namespace fxs::remote
