#include "core/cache/cache_store.h"
#include "core/cache/cache_store_impl.h"

#include "core/cache/artifact_blob.h"
#include "core/cache/artifact_files.h"
#include "core/cache/cache_dir.h"
#include "core/cache/cache_paths.h"
#include "core/cache/database_file.h"
#include "core/cache/sqlite_db.h"
#include "core/cache/store_connection.h"
#include "core/util/digest.h"
#include "core/util/json_parse.h"
#include "core/util/json_text.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace fxs::cache {
namespace {

constexpr const char* kInfoColumns =
    "key, region_digest, title, components, blob_sha256, row_sha256, so_bytes, src_bytes, "
    "blob_bytes, compile_ms, created, last_hit, hit_count, status, status_reason, status_code";
constexpr int kBlobColumn = 16; // "SELECT <kInfoColumns>, blob"
// Free pages kept before they go back to the file system without an eviction (1 MiB of 4 KiB
// pages).
constexpr std::int64_t kShrinkFreePages = 256;

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
    return dumpJson(j);
}

bool parseComponents(const std::string& text, std::vector<KeyComponent>& out)
{
    try {
        const auto parsed = parseJson(text);
        if (!parsed.ok()) {
            return false;
        }
        for (const auto& c : *parsed) {
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

// Sizes of the binary and the source files, as the row records them.
std::pair<std::int64_t, std::int64_t> fileSizes(const Artifact& a)
{
    std::int64_t binary = 0;
    std::int64_t source = 0;
    for (const auto& f : a.files) {
        (isSourceKind(f.kind) ? source : binary) += static_cast<std::int64_t>(f.bytes.size());
    }
    return {binary, source};
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
    e.statusCode = reasonFromCode(static_cast<int>(st.int64(15)));
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
    if (!detail::unpackArtifact(blob, out) || fileSizes(out).first != e.soBytes) {
        problem = "artifact blob has a bad layout";
        return false;
    }
    return true;
}

} // namespace

std::string_view artifactKindName(ArtifactKind k)
{
    switch (k) {
    case ArtifactKind::SharedObject: return "shared_object";
    case ArtifactKind::CppSource: return "cpp_source";
    case ArtifactKind::Cubin: return "cubin";
    case ArtifactKind::CudaSource: return "cuda_source";
    }
    return "unknown";
}

std::string_view artifactExtension(ArtifactKind k)
{
    switch (k) {
    case ArtifactKind::SharedObject: return ".so";
    case ArtifactKind::CppSource: return ".cpp";
    case ArtifactKind::Cubin: return ".cubin";
    case ArtifactKind::CudaSource: return ".cu";
    }
    return ".bin";
}

bool isSourceKind(ArtifactKind k)
{
    return k == ArtifactKind::CppSource || k == ArtifactKind::CudaSource;
}

const std::string* Artifact::bytesOf(ArtifactKind kind) const
{
    for (const auto& f : files) {
        if (f.kind == kind) {
            return &f.bytes;
        }
    }
    return nullptr;
}

Artifact Artifact::hostBuild(std::string sharedObject, std::string cppSource)
{
    return Artifact{{{ArtifactKind::SharedObject, std::move(sharedObject)},
                     {ArtifactKind::CppSource, std::move(cppSource)}}};
}

std::string_view entryStatusName(EntryStatus s)
{
    switch (s) {
    case EntryStatus::Verified: return "verified";
    case EntryStatus::Bad: return "bad";
    case EntryStatus::Unverified: return "unverified";
    }
    return "unknown";
}


Status CacheStore::Impl::createFile()
{
    // O_EXCL: whoever creates the file creates it 0600; a racing process just opens it.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
        ::close(fd);
    } else if (errno != EEXIST) {
        const int err = errno;
        const bool full = err == ENOSPC || err == EDQUOT;
        return makeError(ErrorCode::Io,
                         std::string(full ? "disk full: " : "") +
                             "cannot create the cache database (" + std::strerror(err) + ")",
                         path);
    }
    return {};
}

Status CacheStore::Impl::checkFiles() const
{
    for (const char* suffix : {"", "-wal", "-shm"}) {
        if (Status s = detail::checkOwnFile(path + suffix, *suffix == '\0'); !s) {
            return s;
        }
    }
    return {};
}

Status CacheStore::Impl::claimDirectory(detail::DirState& state)
{
    auto claimed = detail::claimDirectory(dir, path);
    if (!claimed) {
        return claimed.error();
    }
    state = *claimed;
    owned = state == detail::DirState::Marked;
    return {};
}

Status CacheStore::Impl::requireOwned() const
{
    if (!owned) {
        return detail::notACacheDirectory(dir, "it is not marked as fxscope's (its database "
                                               "could not be checked)");
    }
    return detail::requireMarker(dir);
}

Result<std::int64_t> CacheStore::Impl::totalBytes()
{
    auto pages = db.scalarInt("PRAGMA page_count");
    auto freePages = db.scalarInt("PRAGMA freelist_count");
    auto pageSize = db.scalarInt("PRAGMA page_size");
    auto fileBytes = files->bytes();
    for (const auto* r : {&pages, &freePages, &pageSize, &fileBytes}) {
        if (!*r) {
            return r->error();
        }
    }
    return (*pages - *freePages) * *pageSize + *fileBytes;
}

void CacheStore::Impl::shrink()
{
    (void)db.exec("PRAGMA incremental_vacuum");
    (void)db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

// Victims in LRU order until the rest fits; one immediate transaction so two processes never
// evict on the basis of stale totals. Files are unlinked once the rows are gone.
Status CacheStore::Impl::evict(std::int64_t maxBytes, int* removed, int* filesRemoved)
{
    if (Status s = db.exec("BEGIN IMMEDIATE"); !s) {
        return s;
    }
    std::vector<std::string> doomed;
    int evicted = 0;
    Status s = evictLocked(maxBytes, doomed, &evicted);
    if (!s) {
        (void)db.exec("ROLLBACK");
        return s;
    }
    if (Status c = db.exec("COMMIT"); !c) {
        return c;
    }
    if (removed) {
        *removed = evicted;
    }
    const int unlinked = files->unlinkAll(doomed);
    if (filesRemoved) {
        *filesRemoved += unlinked;
    }
    // Free pages go back to the file system after an eviction, so the file on disk is what
    // the cap counts, or once they add up. Not for the page or two a hit's own row updates
    // free: the checkpoint that gives them back costs a hit ~1.5 ms (H100 machine's disk).
    if (auto freePages = db.scalarInt("PRAGMA freelist_count");
        freePages && *freePages > 0 && (evicted > 0 || *freePages >= kShrinkFreePages)) {
        shrink();
    }
    return {};
}

Status CacheStore::Impl::evictLocked(std::int64_t maxBytes, std::vector<std::string>& doomed,
                                     int* removed)
{
    auto total = totalBytes();
    if (!total) {
        return total.error();
    }
    std::int64_t bytes = *total;
    if (bytes <= maxBytes) {
        return {};
    }
    auto st = db.prepare("SELECT e.key, e.blob_bytes + COALESCE((SELECT SUM(f.bytes) FROM files f "
                         "WHERE f.key = e.key), 0) FROM entries e ORDER BY e.last_hit, e.rowid");
    if (!st) {
        return st.error();
    }
    std::vector<std::string> victims;
    for (auto row = st->step(); row && *row && bytes > maxBytes; row = st->step()) {
        victims.push_back(st->text(0));
        bytes -= st->int64(1);
    }
    st->reset();
    for (const auto& key : victims) {
        if (Status s = dropEntry(key, doomed); !s) {
            return s;
        }
    }
    if (removed) {
        *removed = static_cast<int>(victims.size());
    }
    return {};
}

Status CacheStore::Impl::dropEntry(const std::string& key, std::vector<std::string>& doomed)
{
    auto paths = files->dropRows(key);
    if (!paths) {
        return paths.error();
    }
    doomed.insert(doomed.end(), paths->begin(), paths->end());
    auto times = db.prepare("DELETE FROM timings WHERE key = ?");
    if (!times) {
        return times.error();
    }
    if (Status s = times->bind(1, key).run(); !s) {
        return s;
    }
    auto del = db.prepare("DELETE FROM entries WHERE key = ?");
    if (!del) {
        return del.error();
    }
    return del->bind(1, key).run();
}

CacheStore::CacheStore(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
CacheStore::~CacheStore() = default;
const std::string& CacheStore::path() const { return m_impl->path; }
const std::string& CacheStore::directory() const { return m_impl->dir; }
int CacheStore::schemaVersion() const { return m_impl->conn.schema(); }
StoreCondition CacheStore::condition() const { return m_impl->conn.condition(); }
std::string CacheStore::conditionWarning() const { return m_impl->conn.conditionWarning(); }
const std::string& CacheStore::openNotice() const { return m_impl->notice; }

namespace {

std::string noticeFor(FileState before)
{
    switch (before) {
    case FileState::Missing:
        return "the cache database did not exist: a new, empty cache was started";
    case FileState::Empty:
        return "the cache database was an empty (0-byte) file, perhaps truncated: a new, empty "
               "cache was started in it (entries it held, if any, are lost)";
    case FileState::Existing: break;
    }
    return {};
}

} // namespace

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
    impl->dir = parentDir(impl->path);
    if (Status s = ensurePrivateDir(impl->dir); !s) {
        return s.error();
    }
    detail::DirState state = detail::DirState::Unmarked;
    if (Status s = impl->claimDirectory(state); !s) {
        return s.error();
    }
    impl->notice = noticeFor(databaseFileState(impl->path));
    for (Status s : {impl->createFile(), impl->checkFiles()}) {
        if (!s) {
            return s.error();
        }
    }
    // Refuses a database that is not fxscope's (StoreConnection::open).
    if (Status s = impl->conn.open(impl->path, options.busyTimeoutMs); !s) {
        return s.error();
    }
    // A cache directory of a release before markers: its database is fxscope's, so the
    // directory is adopted. A damaged or read-only one stays unowned (nothing is written).
    if (state == detail::DirState::Unmarked &&
        impl->conn.condition() == StoreCondition::Healthy) {
        if (Status s = detail::writeMarker(impl->dir); !s) {
            return s.error();
        }
        impl->owned = true;
    }
    impl->files = std::make_unique<detail::ArtifactFiles>(impl->db, impl->dir);
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
        !checkBlob(e.info, st->blob(kBlobColumn), e.artifact, r.problem)) {
        st->reset();
        r.state = LookupState::Corrupt;
        // A store that cannot write keeps the row; the checksums refuse it again next time.
        if (Status s = remove(key); !s && m_impl->conn.condition() == StoreCondition::Healthy) {
            return s.error();
        }
        return r;
    }
    st->reset();
    if (touch && m_impl->conn.condition() == StoreCondition::Healthy) {
        if (Status s = m_impl->touch(key); !s && !m_impl->db.diskFull()) {
            return s.error(); // on a full disk the hit is served all the same
        }
    }
    r.state = LookupState::Hit;
    r.entry = std::move(e);
    return r;
}

Status CacheStore::Impl::touch(const std::string& key)
{
    auto up = db.prepare("UPDATE entries SET last_hit = ?, hit_count = hit_count + 1 WHERE key = ?");
    if (!up) {
        return up.error();
    }
    return up->bind(1, nowMs()).bind(2, key).run();
}

Status CacheStore::Impl::verifyRows(VerifyReport& r)
{
    auto st = db.prepare(std::string("SELECT ") + kInfoColumns + ", blob FROM entries");
    if (!st) {
        return st.error();
    }
    for (;;) {
        auto row = st->step();
        if (!row) {
            return row.error();
        }
        if (!*row) {
            return {};
        }
        ++r.checked;
        EntryInfo e;
        Artifact a;
        std::string problem;
        if (!readInfo(*st, e, problem) || !checkBlob(e, st->blob(kBlobColumn), a, problem)) {
            r.corrupt.emplace_back(st->text(0), problem);
        }
    }
}

Result<bool> CacheStore::insert(const EntryInfo& infoIn, const Artifact& artifact)
{
    if (Status w = m_impl->conn.writable(); !w) {
        return w.error();
    }
    EntryInfo e = infoIn;
    const std::string blob = detail::packArtifact(artifact);
    const std::string comps = componentsJson(e.components);
    e.blobSha256 = toHex(sha256(blob));
    std::tie(e.soBytes, e.sourceBytes) = fileSizes(artifact);
    e.createdMs = e.lastHitMs = nowMs();
    auto st = m_impl->db.prepare(
        "INSERT OR IGNORE INTO entries(key, region_digest, title, components, blob, blob_sha256,"
        " row_sha256, so_bytes, src_bytes, blob_bytes, compile_ms, created, last_hit, hit_count,"
        " status, status_reason, status_code) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,0,?,?,?)");
    if (!st) {
        return st.error();
    }
    st->bind(1, e.key).bind(2, e.regionDigest).bind(3, e.title).bind(4, comps);
    st->bindBlob(5, blob).bind(6, e.blobSha256).bind(7, rowDigest(e, comps));
    st->bind(8, e.soBytes).bind(9, e.sourceBytes);
    st->bind(10, static_cast<std::int64_t>(blob.size())).bind(11, e.compileMs);
    st->bind(12, e.createdMs).bind(13, e.lastHitMs);
    st->bind(14, static_cast<std::int64_t>(e.status)).bind(15, e.statusReason);
    st->bind(16, static_cast<std::int64_t>(e.statusCode));
    if (Status s = st->run(); !s) {
        return s.error();
    }
    const bool inserted = sqlite3_changes(m_impl->db.handle()) > 0;
    if (Status s = m_impl->evict(m_impl->options.maxBytes, nullptr, nullptr); !s) {
        return s.error();
    }
    return inserted;
}

Result<std::string> CacheStore::materialize(const Entry& entry, ArtifactKind kind)
{
    const std::string* bytes = entry.artifact.bytesOf(kind);
    if (!bytes) {
        return makeError(ErrorCode::Invalid,
                         "the entry has no " + std::string(artifactKindName(kind)) + " file",
                         entry.info.key);
    }
    if (Status s = m_impl->requireOwned(); !s) {
        return s.error();
    }
    // Read-only: an identical file written earlier is served as it is, unrecorded.
    const bool healthy = m_impl->conn.condition() == StoreCondition::Healthy;
    auto path = m_impl->files->write(entry.info.key, kind, *bytes, healthy);
    if (!path) {
        return path.error();
    }
    if (!healthy) {
        return path;
    }
    if (Status s = m_impl->evict(m_impl->options.maxBytes, nullptr, nullptr); !s) {
        return s.error();
    }
    return path;
}

Result<BuildLock> CacheStore::lockBuild(const std::string& key, int timeoutMs)
{
    // Keys are SHA-256 hex; anything else must not become a path.
    if (!detail::isCacheKey(key)) {
        return makeError(ErrorCode::Invalid, "not a cache key", key);
    }
    if (Status s = m_impl->requireOwned(); !s) {
        return s.error();
    }
    auto dirFd = detail::openOwnedSubdir(m_impl->dir, "locks", true); // never a link
    if (!dirFd) {
        return dirFd.error();
    }
    ::close(*dirFd);
    return BuildLock::acquire(m_impl->dir + "/locks/" + key, timeoutMs);
}

Result<ScratchDir> CacheStore::buildDirectory()
{
    if (Status s = m_impl->requireOwned(); !s) {
        return s.error();
    }
    return ScratchDir::create(m_impl->dir, "build-" + std::to_string(::getpid()) + "-");
}

Status CacheStore::remove(const std::string& key)
{
    if (Status w = m_impl->conn.writable(); !w) {
        return w;
    }
    Database& db = m_impl->db;
    if (Status s = db.exec("BEGIN IMMEDIATE"); !s) {
        return s;
    }
    std::vector<std::string> doomed;
    if (Status s = m_impl->dropEntry(key, doomed); !s) {
        (void)db.exec("ROLLBACK");
        return s;
    }
    if (Status c = db.exec("COMMIT"); !c) {
        return c;
    }
    m_impl->files->unlinkAll(doomed);
    return {};
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

Result<std::int64_t> CacheStore::totalBytes() { return m_impl->totalBytes(); }

Result<GcReport> CacheStore::gc(std::int64_t maxBytes)
{
    const StoreCondition condition = m_impl->conn.condition();
    if (condition == StoreCondition::Damaged) {
        return m_impl->conn.writable().error();
    }
    // Only a directory the cache marked is swept (a directory given by mistake keeps its
    // files, whatever their names).
    if (Status s = m_impl->requireOwned(); !s) {
        return s.error();
    }
    GcReport r;
    auto before = totalBytes();
    if (!before) {
        return before.error();
    }
    r.bytesBefore = *before;
    // On a full disk, what needs no database write goes first: the build directories of killed
    // builds may be what filled it. Orphans and eviction need writes; they wait for room.
    auto builds = m_impl->files->sweepBuildDirs();
    if (!builds) {
        return builds.error();
    }
    r.buildDirsRemoved = *builds;
    (void)sweepStaleLocks(m_impl->dir + "/locks", 3600); // 0-byte files: not worth a field
    if (condition == StoreCondition::Healthy) {
        auto orphans = m_impl->files->sweepOrphans();
        if (!orphans) {
            return orphans.error();
        }
        r.filesRemoved = *orphans;
        if (Status s = m_impl->evict(maxBytes, &r.removed, &r.filesRemoved); !s) {
            return s.error();
        }
        m_impl->shrink();
    }
    auto after = totalBytes();
    if (!after) {
        return after.error();
    }
    r.bytesAfter = *after;
    return r;
}

// Damage to the database's own structure is what verify is for: it is reported, not an error.
Result<VerifyReport> CacheStore::verify()
{
    VerifyReport r;
    r.notice = m_impl->notice;
    Status s = m_impl->verifyRows(r);
    if (s) {
        auto integrity = m_impl->db.scalarText("PRAGMA integrity_check");
        s = integrity ? Status() : Status(integrity.error());
        r.integrity = integrity.valueOr("");
    }
    if (m_impl->db.damaged()) {
        r.damage = m_impl->db.damageDetail();
        return r;
    }
    if (!s) {
        return s.error();
    }
    return r;
}

} // namespace fxs::cache
