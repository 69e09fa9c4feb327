// SQLite artifact store: round trip, insert-or-ignore, corruption -> miss, ownership refusal,
// schema versions, LRU eviction, path resolution and several writer processes at once.
#include "core/cache/cache_store.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <thread>

using namespace fxs;
using namespace fxs::cache;

namespace {

EntryInfo makeInfo(const std::string& regionText, const std::string& input = "dtype=float32")
{
    KeyBuilder kb;
    kb.add("region", regionText).add("input[0]", input);
    EntryInfo e;
    e.key = kb.key();
    e.components = kb.components();
    e.regionDigest = regionDigest(e.components);
    e.title = "r0 of test";
    e.compileMs = 123.5;
    return e;
}

// Runs one SQL statement on the database behind the store's back.
void rawExec(const std::string& path, const std::string& sql)
{
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* msg = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg);
    QVERIFY2(rc == SQLITE_OK, msg ? msg : "");
    sqlite3_close(db);
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
        const Artifact art{std::string("\x7f" "ELF\0\1\2", 7), "extern \"C\" void k() {}"};
        auto ins = store->insert(info, art);
        QVERIFY(ins.ok() && *ins);
        auto again = store->insert(info, art);
        QVERIFY(again.ok() && !*again); // same key: ignored
        auto r = store->lookup(info.key);
        QVERIFY(r.ok());
        QCOMPARE(int(r->state), int(LookupState::Hit));
        QCOMPARE(r->entry->artifact.sharedObject, art.sharedObject);
        QCOMPARE(r->entry->artifact.source, art.source);
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
        QVERIFY(store->markBad(info.key, "max abs err 3.0").ok());
        auto bad = store->info(info.key);
        QVERIFY(bad.ok() && bad->has_value());
        QCOMPARE(int((*bad)->status), int(EntryStatus::Bad));
        QCOMPARE((*bad)->statusReason, std::string("max abs err 3.0"));
    }

    void corruptBlobIsAMiss()
    {
        const std::string path = dbPath("corrupt");
        auto store = openStore(path);
        QVERIFY(store);
        const EntryInfo a = makeInfo("A");
        const EntryInfo b = makeInfo("B");
        QVERIFY(store->insert(a, {"so-a", "src-a"}).ok());
        QVERIFY(store->insert(b, {"so-b", "src-b"}).ok());
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
        QVERIFY(*store->insert(a, {"so-a", "src-a"}));
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

    void lruEviction()
    {
        const std::string path = dbPath("lru");
        // Blob = header (~30 bytes) + 1000-byte so: three fit under 3300, four do not.
        auto store = openStore(path, 3300);
        QVERIFY(store);
        const EntryInfo a = makeInfo("A"), b = makeInfo("B"), c = makeInfo("C"), d = makeInfo("D");
        const Artifact art{std::string(1000, 'x'), ""};
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
        auto gc = store->gc(1100); // keeps only the newest (d)
        QVERIFY(gc.ok());
        QCOMPARE(gc->removed, 2);
        QVERIFY(gc->bytesAfter <= 1100 && gc->bytesAfter > 1000);
        QCOMPARE(store->list()->front().key, d.key);
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

    void concurrentWriterProcesses()
    {
        const std::string path = dbPath("concurrent");
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
