// CacheStore's per-key records beside the entries: a bad entry's mark, the statistics of
// reasons, and a verified entry's timings per device.
#include "core/cache/cache_store.h"
#include "core/cache/cache_store_impl.h"

namespace fxs::cache {

Status CacheStore::markBad(const std::string& key, Reason code, const std::string& reason)
{
    if (Status w = m_impl->conn.writable(); !w) {
        return w;
    }
    auto st = m_impl->db.prepare(
        "UPDATE entries SET status = ?, status_reason = ?, status_code = ? WHERE key = ?");
    if (!st) {
        return st.error();
    }
    st->bind(1, static_cast<std::int64_t>(EntryStatus::Bad)).bind(2, reason);
    return st->bind(3, static_cast<std::int64_t>(code)).bind(4, key).run();
}

Status CacheStore::count(Reason reason)
{
    if (Status w = m_impl->conn.writable(); !w) {
        return w;
    }
    auto st = m_impl->db.prepare("INSERT INTO stats(code, count) VALUES(?, 1) "
                                 "ON CONFLICT(code) DO UPDATE SET count = count + 1");
    if (!st) {
        return st.error();
    }
    return st->bind(1, static_cast<std::int64_t>(reason)).run();
}

Status CacheStore::saveTiming(const std::string& key, const std::string& device,
                              const RegionTiming& t)
{
    if (Status w = m_impl->conn.writable(); !w) {
        return w;
    }
    auto st = m_impl->db.prepare(
        "INSERT OR REPLACE INTO timings(key, device, eager_ms, eager_spread_ms, compiled_ms, "
        "compiled_spread_ms, eager_b2b_ms, compiled_b2b_ms, timing, measured) "
        "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!st) {
        return st.error();
    }
    st->bind(1, key).bind(2, device).bind(3, t.eagerMs).bind(4, t.eagerSpreadMs);
    st->bind(5, t.compiledMs).bind(6, t.compiledSpreadMs).bind(7, t.eagerBackToBackMs);
    st->bind(8, t.compiledBackToBackMs).bind(9, t.timing);
    return st->bind(10, t.measuredMs).run();
}

Result<std::optional<RegionTiming>> CacheStore::timing(const std::string& key,
                                                       const std::string& device)
{
    auto st = m_impl->db.prepare(
        "SELECT eager_ms, eager_spread_ms, compiled_ms, compiled_spread_ms, eager_b2b_ms, "
        "compiled_b2b_ms, timing, measured FROM timings WHERE key = ? AND device = ?");
    if (!st) {
        return st.error();
    }
    auto row = st->bind(1, key).bind(2, device).step();
    if (!row) {
        return row.error();
    }
    if (!*row) {
        return std::optional<RegionTiming>();
    }
    RegionTiming t{st->real(0), st->real(1), st->real(2),   st->real(3),
                   st->real(4), st->real(5), st->text(6), st->int64(7)};
    return std::optional<RegionTiming>(std::move(t));
}

Result<std::vector<std::pair<int, std::int64_t>>> CacheStore::stats()
{
    auto st = m_impl->db.prepare("SELECT code, count FROM stats ORDER BY code");
    if (!st) {
        return st.error();
    }
    std::vector<std::pair<int, std::int64_t>> out;
    for (auto row = st->step(); row; row = st->step()) {
        if (!*row) {
            return out;
        }
        out.emplace_back(static_cast<int>(st->int64(0)), st->int64(1));
    }
    return makeError(ErrorCode::Io, "cannot read the cache statistics", m_impl->path);
}

} // namespace fxs::cache
