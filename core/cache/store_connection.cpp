#include "core/cache/store_connection.h"

#include <chrono>
#include <iterator>
#include <thread>

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
};
static_assert(std::size(kMigrations) == kSchemaVersion);

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

Status StoreConnection::prepareSchema()
{
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
