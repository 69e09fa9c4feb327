#include "core/cache/store_connection.h"

#include <chrono>
#include <cstdio>
#include <iterator>
#include <thread>
#include <vector>

namespace fxs::cache::detail {
namespace {

// Schema migrations: kMigrations[v] takes user_version v to v + 1. Append only.
const char* const kMigrations[] = {
    R"sql(
CREATE TABLE entries(
    key TEXT PRIMARY KEY,
    region_digest TEXT NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    components TEXT NOT NULL,
    blob BLOB NOT NULL,
    blob_sha256 TEXT NOT NULL,
    row_sha256 TEXT NOT NULL,
    so_bytes INTEGER NOT NULL,
    src_bytes INTEGER NOT NULL,
    blob_bytes INTEGER NOT NULL,
    compile_ms REAL NOT NULL,
    created INTEGER NOT NULL,
    last_hit INTEGER NOT NULL,
    hit_count INTEGER NOT NULL DEFAULT 0,
    status INTEGER NOT NULL,
    status_reason TEXT NOT NULL DEFAULT '');
CREATE INDEX entries_region ON entries(region_digest);
CREATE INDEX entries_lru ON entries(last_hit);
)sql",
    // 2: materialized files, so that the byte cap counts them and eviction deletes them.
    R"sql(
CREATE TABLE files(
    key TEXT NOT NULL,
    kind INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    PRIMARY KEY(key, kind));
)sql",
    // 3: numbered reasons (cache/reason.h): why an entry is bad, and how often each reason
    // ended a compile.
    R"sql(
ALTER TABLE entries ADD COLUMN status_code INTEGER NOT NULL DEFAULT 0;
CREATE TABLE stats(
    code INTEGER PRIMARY KEY,
    count INTEGER NOT NULL);
)sql",
    // 4: a verified region's timings on the device it ran on, so that a hit reports them
    // instead of timing eager and compiled again.
    R"sql(
CREATE TABLE timings(
    key TEXT NOT NULL,
    device TEXT NOT NULL,
    eager_ms REAL NOT NULL,
    eager_spread_ms REAL NOT NULL,
    compiled_ms REAL NOT NULL,
    compiled_spread_ms REAL NOT NULL,
    eager_b2b_ms REAL NOT NULL,
    compiled_b2b_ms REAL NOT NULL,
    timing TEXT NOT NULL,
    measured INTEGER NOT NULL,
    PRIMARY KEY(key, device));
)sql",
};
static_assert(std::size(kMigrations) == kSchemaVersion);

// PRAGMA application_id of fxscope's cache databases ("fxsc"), set when the cache creates or
// adopts one: a database without it is another program's unless it is empty or has exactly
// fxscope's tables (a cache written before the id existed).
constexpr std::int64_t kApplicationId = 0x66787363;

std::string hexId(std::int64_t id)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%08llx", static_cast<unsigned long long>(id) & 0xffffffffULL);
    return buf;
}

bool fxscopeTables(const std::vector<std::string>& tables)
{
    bool entries = false;
    for (const auto& t : tables) {
        if (t != "entries" && t != "files" && t != "stats" && t != "timings") {
            return false;
        }
        entries = entries || t == "entries";
    }
    return entries;
}

} // namespace

Status StoreConnection::open(const std::string& path, int busyTimeoutMs)
{
    m_path = path;
    if (Status s = m_db.open(path, busyTimeoutMs); !s) {
        return s;
    }
    if (Status s = prepareSchema(); !s) {
        return degrade(s.error());
    }
    return {};
}

// One read transaction, so that the id, version and tables are one snapshot: another process
// creating the schema at the same moment is seen before or after, never half done.
Result<bool> StoreConnection::checkOwnership()
{
    if (Status s = m_db.exec("BEGIN"); !s) {
        return s.error();
    }
    Result<bool> r = readOwnership();
    (void)m_db.exec("ROLLBACK");
    return r;
}

Result<bool> StoreConnection::readOwnership()
{
    auto appId = m_db.scalarInt("PRAGMA application_id");
    if (!appId) {
        return appId.error();
    }
    if (*appId == kApplicationId) {
        return false;
    }
    auto version = m_db.scalarInt("PRAGMA user_version");
    auto st = m_db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND "
                           "name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name");
    if (!version || !st) {
        return !version ? version.error() : st.error();
    }
    std::vector<std::string> tables;
    for (auto row = st->step();; row = st->step()) {
        if (!row) {
            return row.error();
        }
        if (!*row) {
            break;
        }
        tables.push_back(st->text(0));
    }
    const bool fresh = *appId == 0 && *version == 0 && tables.empty();
    const bool legacy = *appId == 0 && *version >= 1 && fxscopeTables(tables);
    if (fresh || legacy) {
        return true;
    }
    Error e = makeError(ErrorCode::Invalid,
                        "not an fxscope cache database (another program's SQLite file?): "
                        "refusing to open it; fxscope creates its tables only in a database it "
                        "created",
                        m_path);
    e.expected = "application_id " + hexId(kApplicationId) + " (fxscope) or an empty database";
    std::string names;
    for (const auto& t : tables) {
        names += (names.empty() ? "" : ", ") + t;
    }
    e.found = "application_id " + hexId(*appId) + ", tables: " + (names.empty() ? "none" : names);
    return e;
}

Status StoreConnection::prepareSchema()
{
    // Before anything is written (WAL mode included): a database that is not fxscope's is
    // left as it was.
    auto adopt = checkOwnership();
    if (!adopt) {
        return adopt.error();
    }
    // Takes effect only on a database without tables (a new one); see useIncrementalVacuum.
    (void)m_db.exec("PRAGMA auto_vacuum=INCREMENTAL");
    if (Status s = setWal(); !s) {
        return s;
    }
    if (Status s = migrate(); !s) {
        return s;
    }
    useIncrementalVacuum();
    return {};
}

Status StoreConnection::setWal()
{
    // Switching to WAL needs a moment without other connections; retry while busy.
    for (int attempt = 0;; ++attempt) {
        auto mode = m_db.scalarText("PRAGMA journal_mode=WAL");
        if (mode && *mode == "wal") {
            return m_db.exec("PRAGMA synchronous=NORMAL");
        }
        if (!mode && (m_db.damaged() || m_db.diskFull())) {
            return mode.error(); // waiting does not help
        }
        if (attempt == 200) {
            return mode ? makeError(ErrorCode::Io, "cannot switch the cache to WAL", m_path)
                        : mode.error();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

Status StoreConnection::migrate()
{
    if (Status s = m_db.exec("BEGIN IMMEDIATE"); !s) {
        return s;
    }
    auto version = m_db.scalarInt("PRAGMA user_version");
    if (!version) {
        (void)m_db.exec("ROLLBACK");
        return version.error();
    }
    if (*version > kSchemaVersion) {
        (void)m_db.exec("ROLLBACK");
        Error e = makeError(ErrorCode::Unsupported,
                            "the cache database was written by a newer fxscope", m_path);
        e.expected = "schema version <= " + std::to_string(kSchemaVersion);
        e.found = "schema version " + std::to_string(*version);
        return e;
    }
    m_schema = kSchemaVersion;
    auto appId = m_db.scalarInt("PRAGMA application_id");
    if (!appId) {
        (void)m_db.exec("ROLLBACK");
        return appId.error();
    }
    if (*appId != kApplicationId) {
        // checkOwnership found it empty or fxscope's; a racing process may have set it since.
        if (Status s = m_db.exec("PRAGMA application_id=" + std::to_string(kApplicationId)); !s) {
            (void)m_db.exec("ROLLBACK");
            return s;
        }
    }
    if (*version == kSchemaVersion) {
        return m_db.exec("COMMIT"); // nothing written: opening works on a full disk
    }
    for (auto v = *version; v < kSchemaVersion; ++v) {
        if (Status s = m_db.exec(kMigrations[v]); !s) {
            (void)m_db.exec("ROLLBACK");
            return s;
        }
    }
    if (Status s = m_db.exec("PRAGMA user_version=" + std::to_string(kSchemaVersion)); !s) {
        (void)m_db.exec("ROLLBACK");
        return s;
    }
    return m_db.exec("COMMIT");
}

// Where the cache can still help, opening degrades instead of failing: a damaged file opens
// Damaged (each caller bypasses the cache, `verify` reports it, `repair` moves it aside); on a
// full disk, where not even the WAL index can be written, the file opens read-only.
Status StoreConnection::degrade(const Error& openError)
{
    if (m_db.damaged()) {
        return {};
    }
    if (!m_db.diskFull()) {
        return openError;
    }
    if (Status s = m_db.openImmutable(m_path); !s) {
        return s;
    }
    if (auto own = checkOwnership(); !own && !m_db.damaged()) {
        return own.error(); // another program's database, even read-only
    }
    auto version = m_db.scalarInt("PRAGMA user_version");
    if (m_db.damaged()) {
        return {};
    }
    if (!version) {
        return version.error();
    }
    if (*version != kSchemaVersion) {
        return openError; // it needs a migration, which is a write
    }
    m_schema = kSchemaVersion;
    m_readOnly = true;
    return {};
}

StoreCondition StoreConnection::condition() const
{
    if (m_db.damaged()) {
        return StoreCondition::Damaged;
    }
    return m_readOnly || m_db.diskFull() ? StoreCondition::ReadOnly : StoreCondition::Healthy;
}

std::string StoreConnection::conditionWarning() const
{
    switch (condition()) {
    case StoreCondition::Healthy: break;
    case StoreCondition::Damaged:
        return m_path + ": the cache database is damaged (" + m_db.damageDetail() +
               "); the cache is bypassed until `fxscope-cli cache --cache " + m_path +
               " repair` moves it aside and starts a fresh one";
    case StoreCondition::ReadOnly:
        return m_path + ": disk full (" + m_db.diskFullDetail() +
               "): the cache is read-only; hits are served, new builds are not stored";
    }
    return {};
}

Status StoreConnection::writable() const
{
    const StoreCondition c = condition();
    if (c == StoreCondition::Healthy) {
        return {};
    }
    return makeError(c == StoreCondition::Damaged ? ErrorCode::Checksum : ErrorCode::Io,
                     conditionWarning());
}

// New databases are created with incremental auto-vacuum (so eviction can shrink the file);
// one written before that is converted once by a VACUUM (best effort: retried next open).
void StoreConnection::useIncrementalVacuum()
{
    auto mode = m_db.scalarInt("PRAGMA auto_vacuum");
    if (mode && *mode == 0 && m_db.exec("PRAGMA auto_vacuum=INCREMENTAL")) {
        (void)m_db.exec("VACUUM");
    }
}

} // namespace fxs::cache::detail
