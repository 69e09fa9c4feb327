// SQLite artifact store: round trip, insert-or-ignore, corruption -> miss, ownership refusal,
// schema versions, LRU eviction (database pages and files), materialized files owned by the
// store, gc sweeps, path resolution and several writer processes at once.
#include "core/cache/artifact_blob.h"
#include "core/cache/cache_store.h"
#include "tests/test_file.h"
#include "tests/unit/cache/cache_test_util.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <thread>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::cache;
using fxs::cache::testing::rawExec;

namespace {

EntryInfo makeInfo(const std::string& regionText, const std::string& input = "dtype=float32")
{
    EntryInfo e = testing::regionEntry(regionText, input);
    e.compileMs = 123.5;
    return e;
}

std::int64_t fileBytes(const std::string& path)
{
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? st.st_size : -1;
}

// Runs one SQL statement on the database behind the store's back.
std::int64_t rawInt(const std::string& path, const std::string& sql)
{
    sqlite3* db = nullptr;
    sqlite3_stmt* st = nullptr;
    std::int64_t v = -1;
    if (sqlite3_open(path.c_str(), &db) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        v = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

} // namespace

class TestCacheStore : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string dbPath(const char* name) const
    {
        return m_dir.path().toStdString() + "/" + name + "/cache.db";
    }
    std::unique_ptr<CacheStore> openStore(const std::string& path, std::int64_t cap = 1 << 30)
    {
        StoreOptions o;
        o.path = path;
        o.maxBytes = cap;
        auto s = CacheStore::open(o);
        if (!s) {
            qWarning("%s", s.error().toString().c_str());
            return nullptr;
        }
        return std::move(*s);
    }

    // A store at dbPath(name) holding makeInfo("A") and makeInfo("B") with these shared
    // objects (sources "src-a", "src-b"); null when that fails.
    std::unique_ptr<CacheStore> storeWithAB(const char* name, const std::string& soA,
                                            const std::string& soB)
    {
        auto store = openStore(dbPath(name));
        const bool ok = store && store->insert(makeInfo("A"), Artifact::hostBuild(soA, "src-a")) &&
                        store->insert(makeInfo("B"), Artifact::hostBuild(soB, "src-b"));
        return ok ? std::move(store) : nullptr;
    }

private Q_SLOTS:
    void roundTrip()
    {
        const std::string path = dbPath("rt");
        auto store = openStore(path);
        QVERIFY(store);
        QCOMPARE(store->schemaVersion(), kSchemaVersion);
        struct stat st {};
        QCOMPARE(::stat(path.c_str(), &st), 0);
        QCOMPARE(st.st_mode & 0777, mode_t(0600));
        const EntryInfo info = makeInfo("A");
        const Artifact art = Artifact::hostBuild(std::string("\x7f" "ELF\0\1\2", 7),
                                                 "extern \"C\" void k() {}");
        auto ins = store->insert(info, art);
        QVERIFY(ins.ok() && *ins);
        auto again = store->insert(info, art);
        QVERIFY(again.ok() && !*again); // same key: ignored
        auto r = store->lookup(info.key);
        QVERIFY(r.ok());
        QCOMPARE(int(r->state), int(LookupState::Hit));
        QCOMPARE(*r->entry->artifact.bytesOf(ArtifactKind::SharedObject),
                 *art.bytesOf(ArtifactKind::SharedObject));
        QCOMPARE(*r->entry->artifact.bytesOf(ArtifactKind::CppSource),
                 *art.bytesOf(ArtifactKind::CppSource));
        QCOMPARE(r->entry->info.components, info.components);
        QCOMPARE(r->entry->info.soBytes, std::int64_t(7));
        QCOMPARE(r->entry->info.compileMs, 123.5);
        QCOMPARE(r->entry->info.hitCount, std::int64_t(0)); // the row as it was before this hit
        auto listed = store->list();
        QVERIFY(listed.ok());
        QCOMPARE(listed->size(), std::size_t(1));
        QCOMPARE(listed->front().hitCount, std::int64_t(1));
        auto miss = store->lookup(std::string(64, '0'));
        QVERIFY(miss.ok());
        QCOMPARE(int(miss->state), int(LookupState::Miss));
        QCOMPARE(*store->resolvePrefix(info.key.substr(0, 6)), info.key);
        QVERIFY(!store->resolvePrefix("zz").ok());
        QVERIFY(store->markBad(info.key, Reason::FallbackVerifyFailed, "max abs err 3.0").ok());
        auto bad = store->info(info.key);
        QVERIFY(bad.ok() && bad->has_value());
        QCOMPARE(int((*bad)->status), int(EntryStatus::Bad));
        QCOMPARE((*bad)->statusReason, std::string("max abs err 3.0"));
        QCOMPARE((*bad)->statusCode, Reason::FallbackVerifyFailed); // persisted by number
    }

    void artifactBlobLayouts()
    {
        Artifact a;
        a.files = {{ArtifactKind::Cubin, std::string("\0\1cubin", 7)},
                   {ArtifactKind::CudaSource, "__global__ void k() {}"},
                   {ArtifactKind::SharedObject, ""}};
        const std::string blob = detail::packArtifact(a);
        QVERIFY(blob.starts_with("fxscope-artifact-2\n3\n3 7\n4 22\n1 0\n"));
        Artifact back;
        QVERIFY(detail::unpackArtifact(blob, back));
        QCOMPARE(back.files.size(), std::size_t(3));
        QCOMPARE(*back.bytesOf(ArtifactKind::Cubin), std::string("\0\1cubin", 7));
        QCOMPARE(*back.bytesOf(ArtifactKind::CudaSource), std::string("__global__ void k() {}"));
        QVERIFY(!detail::unpackArtifact(blob.substr(0, blob.size() - 1), back));
        QVERIFY(!detail::unpackArtifact(blob + "x", back));
        // Format 1 (shared object and C++ source), as written before format 2, is still read.
        QVERIFY(detail::unpackArtifact("fxscope-artifact-1\n3\n2\nSO!cc", back));
        QCOMPARE(*back.bytesOf(ArtifactKind::SharedObject), std::string("SO!"));
        QCOMPARE(*back.bytesOf(ArtifactKind::CppSource), std::string("cc"));
        QVERIFY(!detail::unpackArtifact("fxscope-artifact-1\n3\n9\nSO!cc", back));
        QVERIFY(!detail::unpackArtifact("fxscope-artifact-9\n0\n", back));
    }

    void corruptBlobIsAMiss()
    {
        const std::string path = dbPath("corrupt");
        const EntryInfo a = makeInfo("A");
        const EntryInfo b = makeInfo("B");
        auto store = storeWithAB("corrupt", "so-a", "so-b");
        QVERIFY(store);
        // Flip the blob of A (same length) and the components of B.
        rawExec(path, "UPDATE entries SET blob = CAST(replace(CAST(blob AS TEXT), 'so-a', "
                      "'so-X') AS BLOB) WHERE key = '" + a.key + "'");
        rawExec(path, "UPDATE entries SET components = replace(components, 'input', 'inptu') "
                      "WHERE key = '" + b.key + "'");
        auto v = store->verify();
        QVERIFY(v.ok());
        QCOMPARE(v->checked, 2);
        QCOMPARE(v->corrupt.size(), std::size_t(2));
        QCOMPARE(v->integrity, std::string("ok"));
        auto ra = store->lookup(a.key);
        QVERIFY(ra.ok());
        QCOMPARE(int(ra->state), int(LookupState::Corrupt));
        QVERIFY(ra->problem.find("SHA-256") != std::string::npos);
        auto rb = store->lookup(b.key);
        QCOMPARE(int(rb->state), int(LookupState::Corrupt));
        QVERIFY(rb->problem.find("row checksum") != std::string::npos);
        // The bad rows are gone: a rebuild inserts afresh and hits.
        QCOMPARE(int(store->lookup(a.key)->state), int(LookupState::Miss));
        QVERIFY(*store->insert(a, Artifact::hostBuild("so-a", "src-a")));
        QCOMPARE(int(store->lookup(a.key)->state), int(LookupState::Hit));
    }

    void refusesGroupWritableDatabase()
    {
        const std::string path = dbPath("perm");
        QVERIFY(openStore(path));
        QCOMPARE(::chmod(path.c_str(), 0664), 0);
        StoreOptions o;
        o.path = path;
        auto s = CacheStore::open(o);
        QVERIFY(!s.ok());
        QCOMPARE(int(s.error().code), int(ErrorCode::Invalid));
        QVERIFY(s.error().message.find("writable by group or others") != std::string::npos);
        QCOMPARE(s.error().found, std::string("mode 0664"));
        QCOMPARE(::chmod(path.c_str(), 0600), 0);
        QVERIFY(CacheStore::open(o).ok());
        // A world-writable directory is refused too.
        const std::string dir = m_dir.path().toStdString() + "/perm";
        QCOMPARE(::chmod(dir.c_str(), 0777), 0);
        QVERIFY(!CacheStore::open(o).ok());
        QCOMPARE(::chmod(dir.c_str(), 0700), 0);
        if (::geteuid() != 0) {
            QVERIFY(!checkPrivateFile("/etc/passwd").ok()); // owned by root
        }
    }

    void schemaVersions()
    {
        const std::string path = dbPath("schema");
        QVERIFY(openStore(path));
        rawExec(path, "PRAGMA user_version = 99");
        StoreOptions o;
        o.path = path;
        auto s = CacheStore::open(o);
        QVERIFY(!s.ok());
        QCOMPARE(s.error().found, std::string("schema version 99"));
    }

    // A verified entry's timings are kept per device, replaced by newer ones, and go with
    // their entry.
    void timingsAreSavedPerDeviceAndGoWithTheirEntry()
    {
        const std::string path = dbPath("timings");
        auto store = openStore(path);
        QVERIFY(store);
        const EntryInfo a = makeInfo("A");
        QVERIFY(*store->insert(a, Artifact::hostBuild("so", "src")));
        QVERIFY(store->timing(a.key, "cpu").ok() && !*store->timing(a.key, "cpu"));
        QVERIFY(store->saveTiming(a.key, "cpu", {2.5, 0.25, 1.25, 0.125, 0, 0, "wall mean", 7}).ok());
        QVERIFY(store->saveTiming(a.key, "cuda:0", {0.5, 0, 0.25, 0, 0.4, 0.2, "cuda events median", 8})
                    .ok());
        auto cpu = store->timing(a.key, "cpu");
        QVERIFY(cpu.ok() && cpu->has_value());
        QCOMPARE((*cpu)->eagerMs, 2.5);
        QCOMPARE((*cpu)->compiledSpreadMs, 0.125);
        QCOMPARE((*cpu)->timing, std::string("wall mean"));
        QCOMPARE((*cpu)->measuredMs, std::int64_t(7));
        QVERIFY(store->saveTiming(a.key, "cpu", {3.0, 0, 1.0, 0, 0, 0, "wall mean", 9}).ok());
        QCOMPARE((*store->timing(a.key, "cpu"))->eagerMs, 3.0);
        QCOMPARE((*store->timing(a.key, "cuda:0"))->timing, std::string("cuda events median"));
        QCOMPARE((*store->timing(a.key, "cuda:0"))->compiledBackToBackMs, 0.2);
        QVERIFY(store->remove(a.key).ok());
        QVERIFY(!*store->timing(a.key, "cpu"));
        QVERIFY(!*store->timing(a.key, "cuda:0"));
    }

    void migratesVersion1Databases()
    {
        // A version-1 database: no files, stats or timings table, no status codes, no
        // auto-vacuum (made
        // by downgrading a new one).
        const std::string path = dbPath("v1");
        const EntryInfo a = makeInfo("A");
        {
            auto store = openStore(path);
            QVERIFY(store && *store->insert(a, Artifact::hostBuild("so", "src")));
        }
        rawExec(path, "DROP TABLE files; DROP TABLE stats; DROP TABLE timings; "
                      "ALTER TABLE entries DROP COLUMN "
                      "status_code; PRAGMA user_version = 1; PRAGMA auto_vacuum = NONE; VACUUM;");
        QCOMPARE(rawInt(path, "PRAGMA auto_vacuum"), std::int64_t(0));
        auto store = openStore(path);
        QVERIFY(store);
        QCOMPARE(store->schemaVersion(), kSchemaVersion);
        auto hit = store->lookup(a.key);
        QVERIFY(hit.ok() && hit->state == LookupState::Hit);
        QVERIFY(store->materialize(*hit->entry, ArtifactKind::SharedObject).ok());
        store.reset();
        QCOMPARE(rawInt(path, "PRAGMA auto_vacuum"), std::int64_t(2)); // incremental
    }

    void lruEviction()
    {
        const std::string path = dbPath("lru");
        const EntryInfo a = makeInfo("A"), b = makeInfo("B"), c = makeInfo("C"), d = makeInfo("D");
        const Artifact art = Artifact::hostBuild(std::string(20000, 'x'), "");
        // The cap counts database pages: measure an empty store and one entry first.
        std::int64_t base = 0;
        std::int64_t per = 0;
        {
            auto probe = openStore(dbPath("lru_probe"));
            QVERIFY(probe);
            base = *probe->totalBytes();
            QVERIFY(*probe->insert(a, art));
            per = *probe->totalBytes() - base;
            QVERIFY(per > 20000 && per < 30000);
        }
        // Three entries fit under the cap, four do not.
        auto store = openStore(path, base + 3 * per + per / 2);
        QVERIFY(store);
        for (const auto* e : {&a, &b, &c}) {
            QVERIFY(*store->insert(*e, art));
            std::this_thread::sleep_for(std::chrono::milliseconds(3));
        }
        QVERIFY(store->lookup(a.key)->state == LookupState::Hit); // a is now most recent
        std::this_thread::sleep_for(std::chrono::milliseconds(3));
        QVERIFY(*store->insert(d, art)); // evicts b, the least recently used
        QCOMPARE(int(store->lookup(b.key, false)->state), int(LookupState::Miss));
        QCOMPARE(int(store->lookup(a.key, false)->state), int(LookupState::Hit));
        QCOMPARE(int(store->lookup(c.key, false)->state), int(LookupState::Hit));
        auto gc = store->gc(base + per + per / 2); // keeps only the newest (d)
        QVERIFY(gc.ok());
        QCOMPARE(gc->removed, 2);
        QVERIFY(gc->bytesAfter <= base + per + per / 2 && gc->bytesAfter > base);
        QCOMPARE(store->list()->size(), std::size_t(1));
        QCOMPARE(store->list()->front().key, d.key);
        // The file shrank with the evictions (incremental auto-vacuum), not just the count.
        store.reset();
        QVERIFY(fileBytes(path) <= base + per + per / 2);
    }

    // A hit (lookup + materialize, each process anew) does not give free pages back: that
    // checkpoints the WAL (a truncated -wal file), ~1.5 ms of a ≤ 2 ms hit on the GPU machine.
    void hitsLeaveTheWalAlone()
    {
        const EntryInfo a = makeInfo("A");
        const std::string path = dbPath("hits");
        QVERIFY(storeWithAB("hits", std::string(5000, 'a'), std::string(7000, 'b')));
        for (int hit = 0; hit < 5; ++hit) {
            auto store = openStore(path);
            QVERIFY(store);
            auto found = store->lookup(a.key);
            QVERIFY(found.ok() && found->entry);
            QVERIFY(store->materialize(*found->entry, ArtifactKind::SharedObject).ok());
            QVERIFY2(fileBytes(path + "-wal") > 0, qPrintable(QStringLiteral("hit %1").arg(hit)));
        }
    }

    void materializedFilesBelongToTheStore()
    {
        const EntryInfo a = makeInfo("A");
        const EntryInfo b = makeInfo("B");
        auto store = storeWithAB("files", std::string(5000, 'a'), std::string(7000, 'b'));
        QVERIFY(store);
        const std::int64_t before = *store->totalBytes();
        auto hit = store->lookup(a.key);
        QVERIFY(hit.ok() && hit->entry);
        auto so = store->materialize(*hit->entry, ArtifactKind::SharedObject);
        QVERIFY2(so.ok(), so.ok() ? "" : so.error().toString().c_str());
        QCOMPARE(*so, store->directory() + "/artifacts/" + a.key + ".so");
        QFile f(QString::fromStdString(*so));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll().toStdString(), std::string(5000, 'a'));
        struct stat st {};
        QCOMPARE(::stat(so->c_str(), &st), 0);
        QCOMPARE(st.st_mode & 0777, mode_t(0600));
        QCOMPARE(*store->totalBytes(), before + 5000); // the cap counts the file
        // Materializing again keeps the file (same inode: compared, not rewritten).
        const ino_t inode = st.st_ino;
        QCOMPARE(*store->materialize(*hit->entry, ArtifactKind::SharedObject), *so);
        QCOMPARE(::stat(so->c_str(), &st), 0);
        QCOMPARE(st.st_ino, inode);
        auto src = store->materialize(*hit->entry, ArtifactKind::CppSource);
        QVERIFY(src.ok() && src->ends_with(".cpp"));
        QVERIFY(!store->materialize(*hit->entry, ArtifactKind::Cubin).ok()); // none in it
        // remove() deletes the row and its files.
        QVERIFY(store->remove(a.key).ok());
        QVERIFY(::access(so->c_str(), F_OK) != 0);
        QVERIFY(::access(src->c_str(), F_OK) != 0);
        // Eviction deletes them too.
        auto hitB = store->lookup(b.key);
        auto soB = store->materialize(*hitB->entry, ArtifactKind::SharedObject);
        QVERIFY(soB.ok() && ::access(soB->c_str(), F_OK) == 0);
        auto gc = store->gc(0);
        QVERIFY(gc.ok());
        QCOMPARE(gc->removed, 1);
        QCOMPARE(gc->filesRemoved, 1);
        QVERIFY(::access(soB->c_str(), F_OK) != 0);
        QCOMPARE(QDir(QString::fromStdString(store->directory() + "/artifacts"))
                     .entryList(QDir::Files).size(),
                 0);
    }

    void gcSweepsWhatDeadProcessesLeft()
    {
        const std::string path = dbPath("sweep");
        auto store = openStore(path);
        QVERIFY(store);
        const std::string dir = store->directory();
        // A build directory of a process that has exited, one of this process, one very old.
        const pid_t child = ::fork();
        if (child == 0) {
            ::_exit(0);
        }
        int status = 0;
        ::waitpid(child, &status, 0);
        const std::string dead = dir + "/build-" + std::to_string(child) + "-abcdef";
        QCOMPARE(::mkdir(dead.c_str(), 0700), 0);
        QVERIFY(QFile(QString::fromStdString(dead + "/region.cpp")).open(QIODevice::WriteOnly));
        auto mine = store->buildDirectory();
        QVERIFY(mine.ok());
        QVERIFY(QString::fromStdString(mine->path()).contains(
            QString("/build-%1-").arg(::getpid())));
        // Files in artifacts/ that no entry owns: an old one goes, a young one stays (it may be
        // a materialize in flight in another process).
        QVERIFY(ensurePrivateDir(dir + "/artifacts").ok());
        // (Named as the store names its files: it deletes no other names.)
        const std::string oldOrphan = dir + "/artifacts/" + makeInfo("orphan-old").key + ".so";
        const std::string youngOrphan =
            dir + "/artifacts/" + makeInfo("orphan-young").key + ".so";
        QVERIFY(writePrivateFile(oldOrphan, "x").ok());
        QVERIFY(writePrivateFile(youngOrphan, "y").ok());
        const timeval old[2] = {{std::time(nullptr) - 7200, 0}, {std::time(nullptr) - 7200, 0}};
        QCOMPARE(::utimes(oldOrphan.c_str(), old), 0);
        auto gc = store->gc(1LL << 40);
        QVERIFY(gc.ok());
        QCOMPARE(gc->buildDirsRemoved, 1);
        QCOMPARE(gc->filesRemoved, 1);
        QVERIFY(::access(dead.c_str(), F_OK) != 0);
        QVERIFY(::access(mine->path().c_str(), F_OK) == 0);
        QVERIFY(::access(oldOrphan.c_str(), F_OK) != 0);
        QVERIFY(::access(youngOrphan.c_str(), F_OK) == 0);
        // The scratch directory of this build goes with its owner.
        const std::string minePath = mine->path();
        { auto gone = std::move(*mine); }
        QVERIFY(::access(minePath.c_str(), F_OK) != 0);
    }

    void resolvesDefaultPath()
    {
        const QByteArray oldXdg = qgetenv("XDG_CACHE_HOME");
        const QByteArray oldDir = qgetenv("FXSCOPE_CACHE_DIR");
        qunsetenv("FXSCOPE_CACHE_DIR");
        qputenv("XDG_CACHE_HOME", "/x/y");
        QCOMPARE(*defaultCachePath(), std::string("/x/y/fxscope/cache.db"));
        qputenv("XDG_CACHE_HOME", "relative/ignored");
        QCOMPARE(*defaultCachePath(), std::string(std::getenv("HOME")) + "/.cache/fxscope/cache.db");
        qputenv("FXSCOPE_CACHE_DIR", "/opt/c");
        QCOMPARE(*defaultCachePath(), std::string("/opt/c/cache.db"));
        oldXdg.isNull() ? qunsetenv("XDG_CACHE_HOME") : qputenv("XDG_CACHE_HOME", oldXdg);
        oldDir.isNull() ? qunsetenv("FXSCOPE_CACHE_DIR") : qputenv("FXSCOPE_CACHE_DIR", oldDir);
    }

    // Six processes open one new directory at once, then insert and hit the same keys. Four
    // rounds, each in a new directory: claiming a new directory raced (one process could see
    // another's files before its marker) about once in twenty rounds.
    void concurrentWriterProcesses()
    {
        for (int round = 0; round < 4; ++round) {
            const std::string name = "concurrent" + std::to_string(round);
            writersShareOneStore(dbPath(name.c_str()));
            if (QTest::currentTestFailed()) {
                return;
            }
        }
    }

private:
    void writersShareOneStore(const std::string& path)
    {
        constexpr int kWriters = 6;
        constexpr int kKeys = 40;
        std::vector<std::unique_ptr<QProcess>> procs;
        for (int w = 0; w < kWriters; ++w) {
            auto p = std::make_unique<QProcess>();
            p->start(CACHE_WRITER_PATH, {QString::fromStdString(path), QString::number(kKeys),
                                         QString::number(w)});
            procs.push_back(std::move(p));
        }
        int insertedTotal = 0;
        for (auto& p : procs) {
            QVERIFY(p->waitForFinished(120000));
            QVERIFY2(p->exitCode() == 0, p->readAllStandardError().constData());
            insertedTotal += p->readAllStandardOutput().trimmed().toInt();
        }
        QCOMPARE(insertedTotal, kKeys); // each key created by exactly one writer
        auto store = openStore(path);
        QVERIFY(store);
        auto v = store->verify();
        QVERIFY(v.ok());
        QCOMPARE(v->checked, kKeys);
        QVERIFY(v->corrupt.empty());
        QCOMPARE(v->integrity, std::string("ok"));
        auto entries = store->list();
        QVERIFY(entries.ok());
        for (const auto& e : *entries) {
            QCOMPARE(e.hitCount, std::int64_t(kWriters));
        }
    }
};

QTEST_GUILESS_MAIN(TestCacheStore)
#include "tst_cache_store.moc"

FXSCOPE_TEST_END
