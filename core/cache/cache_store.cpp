#include "core/cache/cache_store.h"

#include "core/cache/cache_paths.h"
#include "core/cache/sqlite_db.h"
#include "core/util/digest.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <fcntl.h>
#include <thread>
#include <unistd.h>

namespace fxs::cache {
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
};
static_assert(std::size(kMigrations) == kSchemaVersion);

constexpr const char* kInfoColumns =
    "key, region_digest, title, components, blob_sha256, row_sha256, so_bytes, src_bytes, "
    "blob_bytes, compile_ms, created, last_hit, hit_count, status, status_reason";

std::int64_t nowMs()
{
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::string componentsJson(const std::vector<KeyComponent>& cs)
{
    nlohmann::json j = nlohmann::json::array();
    for (const auto& c : cs) {
        j.push_back({{"label", c.label}, {"digest", c.digest}, {"text", c.text}});
    }
    return j.dump();
}

bool parseComponents(const std::string& text, std::vector<KeyComponent>& out)
{
    try {
        for (const auto& c : nlohmann::json::parse(text)) {
            out.push_back({c.at("label").get<std::string>(), c.at("text").get<std::string>(),
                           c.at("digest").get<std::string>()});
        }
        return true;
    } catch (const nlohmann::json::exception&) {
        return false;
    }
}

// The row checksum covers every column that decides what gets loaded or reported as the key.
std::string rowDigest(const EntryInfo& e, const std::string& componentsText)
{
    return toHex(sha256(e.key + "\n" + e.regionDigest + "\n" + componentsText + "\n" +
                        e.blobSha256 + "\n" + std::to_string(e.soBytes) + "\n" +
                        std::to_string(e.sourceBytes)));
}

std::string packBlob(const Artifact& a)
{
    return std::string(kArtifactFormat) + "\n" + std::to_string(a.sharedObject.size()) + "\n" +
           std::to_string(a.source.size()) + "\n" + a.sharedObject + a.source;
}

bool unpackBlob(const std::string& blob, Artifact& out)
{
    const auto l1 = blob.find('\n');
    const auto l2 = l1 == std::string::npos ? l1 : blob.find('\n', l1 + 1);
    const auto l3 = l2 == std::string::npos ? l2 : blob.find('\n', l2 + 1);
    if (l3 == std::string::npos || blob.compare(0, l1, kArtifactFormat) != 0) {
        return false;
    }
    const std::size_t so = std::strtoull(blob.c_str() + l1 + 1, nullptr, 10);
    const std::size_t src = std::strtoull(blob.c_str() + l2 + 1, nullptr, 10);
    if (l3 + 1 + so + src != blob.size()) {
        return false;
    }
    out.sharedObject = blob.substr(l3 + 1, so);
    out.source = blob.substr(l3 + 1 + so, src);
    return true;
}

// Reads the info columns (in kInfoColumns order) and checks the row digest.
bool readInfo(const Statement& st, EntryInfo& e, std::string& problem)
{
    e.key = st.text(0);
    e.regionDigest = st.text(1);
    e.title = st.text(2);
    const std::string comps = st.text(3);
    e.blobSha256 = st.text(4);
    e.soBytes = st.int64(6);
    e.sourceBytes = st.int64(7);
    e.blobBytes = st.int64(8);
    e.compileMs = st.real(9);
    e.createdMs = st.int64(10);
    e.lastHitMs = st.int64(11);
    e.hitCount = st.int64(12);
    e.status = static_cast<EntryStatus>(st.int64(13));
    e.statusReason = st.text(14);
    if (rowDigest(e, comps) != st.text(5)) {
        problem = "row checksum mismatch";
        return false;
    }
    if (!parseComponents(comps, e.components)) {
        problem = "unreadable key components";
        return false;
    }
    return true;
}

bool checkBlob(const EntryInfo& e, const std::string& blob, Artifact& out, std::string& problem)
{
    if (toHex(sha256(blob)) != e.blobSha256) {
        problem = "artifact blob SHA-256 mismatch";
        return false;
    }
    if (!unpackBlob(blob, out) || static_cast<std::int64_t>(out.sharedObject.size()) != e.soBytes) {
        problem = "artifact blob has a bad layout";
        return false;
    }
    return true;
}

} // namespace

std::string_view entryStatusName(EntryStatus s)
{
    switch (s) {
    case EntryStatus::Verified: return "verified";
    case EntryStatus::Bad: return "bad";
    case EntryStatus::Unverified: return "unverified";
    }
    return "unknown";
}

struct CacheStore::Impl {
    Database db;
    std::string path;
    StoreOptions options;
    int schema = 0;

    Status createFile();
    Status checkFiles() const;
    Status setWal();
    Status migrate();
    Status evict(std::int64_t maxBytes, int* removed);
    Status evictLocked(std::int64_t maxBytes, int* removed);
};

Status CacheStore::Impl::createFile()
{
    // O_EXCL: whoever creates the file creates it 0600; a racing process just opens it.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
        ::close(fd);
    } else if (errno != EEXIST) {
        return makeError(ErrorCode::Io, "cannot create the cache database", path);
    }
    return {};
}

Status CacheStore::Impl::checkFiles() const
{
    if (Status s = checkPrivateFile(path); !s) {
        return s;
    }
    for (const char* suffix : {"-wal", "-shm"}) {
        if (::access((path + suffix).c_str(), F_OK) == 0) {
            if (Status s = checkPrivateFile(path + suffix); !s) {
                return s;
            }
        }
    }
    return {};
}

Status CacheStore::Impl::setWal()
{
    // Switching to WAL needs a moment without other connections; retry while busy.
    for (int attempt = 0;; ++attempt) {
        auto mode = db.scalarText("PRAGMA journal_mode=WAL");
        if (mode && *mode == "wal") {
            return db.exec("PRAGMA synchronous=NORMAL");
        }
        if (attempt == 200) {
            return mode ? makeError(ErrorCode::Io, "cannot switch the cache to WAL", path)
                        : mode.error();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

Status CacheStore::Impl::migrate()
{
    if (Status s = db.exec("BEGIN IMMEDIATE"); !s) {
        return s;
    }
    auto version = db.scalarInt("PRAGMA user_version");
    if (!version) {
        (void)db.exec("ROLLBACK");
        return version.error();
    }
    if (*version > kSchemaVersion) {
        (void)db.exec("ROLLBACK");
        Error e = makeError(ErrorCode::Unsupported,
                            "the cache database was written by a newer fxscope", path);
        e.expected = "schema version <= " + std::to_string(kSchemaVersion);
        e.found = "schema version " + std::to_string(*version);
        return e;
    }
    for (auto v = *version; v < kSchemaVersion; ++v) {
        if (Status s = db.exec(kMigrations[v]); !s) {
            (void)db.exec("ROLLBACK");
            return s;
        }
    }
    if (Status s = db.exec("PRAGMA user_version=" + std::to_string(kSchemaVersion)); !s) {
        (void)db.exec("ROLLBACK");
        return s;
    }
    schema = kSchemaVersion;
    return db.exec("COMMIT");
}

// Victims in LRU order until the rest fits; one immediate transaction so two processes never
// evict on the basis of stale totals.
Status CacheStore::Impl::evict(std::int64_t maxBytes, int* removed)
{
    if (Status s = db.exec("BEGIN IMMEDIATE"); !s) {
        return s;
    }
    Status s = evictLocked(maxBytes, removed);
    (void)db.exec(s ? "COMMIT" : "ROLLBACK");
    return s;
}

Status CacheStore::Impl::evictLocked(std::int64_t maxBytes, int* removed)
{
    auto total = db.scalarInt("SELECT COALESCE(SUM(blob_bytes), 0) FROM entries");
    if (!total) {
        return total.error();
    }
    std::int64_t bytes = *total;
    if (bytes <= maxBytes) {
        return {};
    }
    auto st = db.prepare("SELECT key, blob_bytes FROM entries ORDER BY last_hit, rowid");
    if (!st) {
        return st.error();
    }
    std::vector<std::string> victims;
    for (auto row = st->step(); row && *row && bytes > maxBytes; row = st->step()) {
        victims.push_back(st->text(0));
        bytes -= st->int64(1);
    }
    st->reset();
    auto del = db.prepare("DELETE FROM entries WHERE key = ?");
    if (!del) {
        return del.error();
    }
    for (const auto& key : victims) {
        if (Status s = del->bind(1, key).run(); !s) {
            return s;
        }
        del->reset();
    }
    if (removed) {
        *removed = static_cast<int>(victims.size());
    }
    return {};
}

CacheStore::CacheStore(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
CacheStore::~CacheStore() = default;
const std::string& CacheStore::path() const { return m_impl->path; }
int CacheStore::schemaVersion() const { return m_impl->schema; }

Result<std::unique_ptr<CacheStore>> CacheStore::open(const StoreOptions& options)
{
    auto impl = std::make_unique<Impl>();
    impl->options = options;
    impl->path = options.path;
    if (impl->path.empty()) {
        auto p = defaultCachePath();
        if (!p) {
            return p.error();
        }
        impl->path = *p;
    }
    for (Status s : {ensurePrivateDir(parentDir(impl->path)), impl->createFile(),
                     impl->checkFiles()}) {
        if (!s) {
            return s.error();
        }
    }
    if (Status s = impl->db.open(impl->path, options.busyTimeoutMs); !s) {
        return s.error();
    }
    if (Status s = impl->setWal(); !s) {
        return s.error();
    }
    if (Status s = impl->migrate(); !s) {
        return s.error();
    }
    return std::unique_ptr<CacheStore>(new CacheStore(std::move(impl)));
}

Result<LookupResult> CacheStore::lookup(const std::string& key, bool touch)
{
    auto st = m_impl->db.prepare(std::string("SELECT ") + kInfoColumns +
                                 ", blob FROM entries WHERE key = ?");
    if (!st) {
        return st.error();
    }
    st->bind(1, key);
    auto row = st->step();
    if (!row) {
        return row.error();
    }
    LookupResult r;
    if (!*row) {
        return r;
    }
    Entry e;
    if (!readInfo(*st, e.info, r.problem) ||
        !checkBlob(e.info, st->blob(15), e.artifact, r.problem)) {
        st->reset();
        r.state = LookupState::Corrupt;
        if (Status s = remove(key); !s) {
            return s.error();
        }
        return r;
    }
    st->reset();
    if (touch) {
        auto up = m_impl->db.prepare(
            "UPDATE entries SET last_hit = ?, hit_count = hit_count + 1 WHERE key = ?");
        if (!up) {
            return up.error();
        }
        if (Status s = up->bind(1, nowMs()).bind(2, key).run(); !s) {
            return s.error();
        }
    }
    r.state = LookupState::Hit;
    r.entry = std::move(e);
    return r;
}

Result<bool> CacheStore::insert(const EntryInfo& infoIn, const Artifact& artifact)
{
    EntryInfo e = infoIn;
    const std::string blob = packBlob(artifact);
    const std::string comps = componentsJson(e.components);
    e.blobSha256 = toHex(sha256(blob));
    e.soBytes = static_cast<std::int64_t>(artifact.sharedObject.size());
    e.sourceBytes = static_cast<std::int64_t>(artifact.source.size());
    e.createdMs = e.lastHitMs = nowMs();
    auto st = m_impl->db.prepare(
        "INSERT OR IGNORE INTO entries(key, region_digest, title, components, blob, blob_sha256,"
        " row_sha256, so_bytes, src_bytes, blob_bytes, compile_ms, created, last_hit, hit_count,"
        " status, status_reason) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,0,?,?)");
    if (!st) {
        return st.error();
    }
    st->bind(1, e.key).bind(2, e.regionDigest).bind(3, e.title).bind(4, comps);
    st->bindBlob(5, blob).bind(6, e.blobSha256).bind(7, rowDigest(e, comps));
    st->bind(8, e.soBytes).bind(9, e.sourceBytes);
    st->bind(10, static_cast<std::int64_t>(blob.size())).bind(11, e.compileMs);
    st->bind(12, e.createdMs).bind(13, e.lastHitMs);
    st->bind(14, static_cast<std::int64_t>(e.status)).bind(15, e.statusReason);
    if (Status s = st->run(); !s) {
        return s.error();
    }
    const bool inserted = sqlite3_changes(m_impl->db.handle()) > 0;
    if (Status s = m_impl->evict(m_impl->options.maxBytes, nullptr); !s) {
        return s.error();
    }
    return inserted;
}

Status CacheStore::markBad(const std::string& key, const std::string& reason)
{
    auto st = m_impl->db.prepare("UPDATE entries SET status = ?, status_reason = ? WHERE key = ?");
    if (!st) {
        return st.error();
    }
    return st->bind(1, static_cast<std::int64_t>(EntryStatus::Bad)).bind(2, reason).bind(3, key)
        .run();
}

Status CacheStore::remove(const std::string& key)
{
    auto st = m_impl->db.prepare("DELETE FROM entries WHERE key = ?");
    if (!st) {
        return st.error();
    }
    return st->bind(1, key).run();
}

namespace {

// Rows of a SELECT of kInfoColumns; unreadable rows are skipped (verify() reports them).
Result<std::vector<EntryInfo>> collectInfos(Statement& st)
{
    std::vector<EntryInfo> out;
    for (;;) {
        auto row = st.step();
        if (!row) {
            return row.error();
        }
        if (!*row) {
            return out;
        }
        EntryInfo e;
        std::string problem;
        if (readInfo(st, e, problem)) {
            out.push_back(std::move(e));
        }
    }
}

} // namespace

Result<std::vector<EntryInfo>> CacheStore::list()
{
    auto st = m_impl->db.prepare(std::string("SELECT ") + kInfoColumns +
                                 " FROM entries ORDER BY last_hit DESC, rowid DESC");
    if (!st) {
        return st.error();
    }
    return collectInfos(*st);
}

Result<std::optional<EntryInfo>> CacheStore::info(const std::string& key)
{
    auto st = m_impl->db.prepare(std::string("SELECT ") + kInfoColumns +
                                 " FROM entries WHERE key = ?");
    if (!st) {
        return st.error();
    }
    st->bind(1, key);
    auto rows = collectInfos(*st);
    if (!rows) {
        return rows.error();
    }
    return rows->empty() ? std::optional<EntryInfo>() : std::optional<EntryInfo>(rows->front());
}

Result<std::string> CacheStore::resolvePrefix(const std::string& prefix)
{
    if (prefix.size() < 4 || prefix.find_first_not_of("0123456789abcdef") != std::string::npos) {
        return makeError(ErrorCode::Invalid, "a key prefix needs at least 4 hex digits", prefix);
    }
    auto st = m_impl->db.prepare("SELECT key FROM entries WHERE key >= ? AND key < ? LIMIT 2");
    if (!st) {
        return st.error();
    }
    st->bind(1, prefix).bind(2, prefix + "g");
    std::vector<std::string> keys;
    for (auto row = st->step(); row && *row; row = st->step()) {
        keys.push_back(st->text(0));
    }
    if (keys.size() != 1) {
        return makeError(ErrorCode::Invalid,
                         keys.empty() ? "no cache entry has this key" : "the key prefix is ambiguous",
                         prefix);
    }
    return keys.front();
}

Result<std::vector<EntryInfo>> CacheStore::entriesOfRegion(const std::string& regionDigest)
{
    auto st = m_impl->db.prepare(std::string("SELECT ") + kInfoColumns +
                                 " FROM entries WHERE region_digest = ? ORDER BY last_hit DESC");
    if (!st) {
        return st.error();
    }
    st->bind(1, regionDigest);
    return collectInfos(*st);
}

Result<std::int64_t> CacheStore::totalBytes()
{
    return m_impl->db.scalarInt("SELECT COALESCE(SUM(blob_bytes), 0) FROM entries");
}

Result<GcReport> CacheStore::gc(std::int64_t maxBytes)
{
    GcReport r;
    auto before = totalBytes();
    if (!before) {
        return before.error();
    }
    r.bytesBefore = *before;
    if (Status s = m_impl->evict(maxBytes, &r.removed); !s) {
        return s.error();
    }
    auto after = totalBytes();
    if (!after) {
        return after.error();
    }
    r.bytesAfter = *after;
    return r;
}

Result<VerifyReport> CacheStore::verify()
{
    VerifyReport r;
    auto st = m_impl->db.prepare(std::string("SELECT ") + kInfoColumns + ", blob FROM entries");
    if (!st) {
        return st.error();
    }
    for (;;) {
        auto row = st->step();
        if (!row) {
            return row.error();
        }
        if (!*row) {
            break;
        }
        ++r.checked;
        EntryInfo e;
        Artifact a;
        std::string problem;
        if (!readInfo(*st, e, problem) || !checkBlob(e, st->blob(15), a, problem)) {
            r.corrupt.emplace_back(st->text(0), problem);
        }
    }
    auto integrity = m_impl->db.scalarText("PRAGMA integrity_check");
    if (!integrity) {
        return integrity.error();
    }
    r.integrity = *integrity;
    return r;
}

} // namespace fxs::cache
