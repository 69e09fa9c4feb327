// The store deletes and writes only what is its own: a directory it did not mark is refused
// (its files kept, whatever their names), a cache directory of a release before markers is
// adopted, a database that is not fxscope's (a link to one, or one copied in) is refused and
// gets no tables, artifacts/ and locks/ that are links are refused and their targets untouched,
// gc deletes only names of the shapes it creates, and a removal never follows a link.
#include "core/cache/cache_key.h"
#include "core/cache/cache_paths.h"
#include "core/cache/cache_store.h"
#include "tests/test_file.h"
#include "tests/unit/cache/cache_test_util.h"

#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ctime>
#include <fstream>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::cache;
using fxs::cache::testing::rawExec;
using fxs::cache::testing::regionEntry;

namespace {

bool exists(const std::string& path)
{
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
}

void writeText(const std::string& path, const std::string& text)
{
    std::ofstream(path) << text;
}

// Ages a file (or directory) by two hours: past every sweep's grace period.
void age(const std::string& path)
{
    const timeval old[2] = {{std::time(nullptr) - 7200, 0}, {std::time(nullptr) - 7200, 0}};
    QCOMPARE(::lutimes(path.c_str(), old), 0);
}

// Runs SQL on a database behind the store's back.
std::string rawText(const std::string& path, const std::string& sql)
{
    sqlite3* db = nullptr;
    sqlite3_stmt* st = nullptr;
    std::string out;
    if (sqlite3_open(path.c_str(), &db) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            out += std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 0))) + ";";
        }
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

// A pid that is certainly gone (a child that exited).
pid_t deadPid()
{
    const pid_t child = ::fork();
    if (child == 0) {
        ::_exit(0);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    return child;
}

} // namespace

class TestCacheOwnership : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    std::string dir(const char* name) const
    {
        const std::string d = m_dir.path().toStdString() + "/" + name;
        ::mkdir(d.c_str(), 0700);
        return d;
    }
    static Result<std::unique_ptr<CacheStore>> open(const std::string& path)
    {
        StoreOptions o;
        o.path = path;
        return CacheStore::open(o);
    }
    // A store holding one entry whose shared object is materialized.
    static std::unique_ptr<CacheStore> storeWithAFile(const std::string& path)
    {
        auto s = open(path);
        if (!s || !(*s)->insert(regionEntry("A"), Artifact::hostBuild("so-a", "src-a")).ok()) {
            return nullptr;
        }
        auto hit = (*s)->lookup(regionEntry("A").key);
        if (!hit || !hit->entry || !(*s)->materialize(*hit->entry, ArtifactKind::SharedObject)) {
            return nullptr;
        }
        return std::move(*s);
    }

private Q_SLOTS:
    // FXSCOPE_CACHE_DIR (or --cache) pointed at a folder of the user's: refused, nothing goes.
    void existingFolderIsRefused()
    {
        const std::string d = dir("documents");
        QCOMPARE(::mkdir((d + "/artifacts").c_str(), 0700), 0);
        writeText(d + "/artifacts/report.pdf", "%PDF");
        const std::string build = d + "/build-77777-release";
        QCOMPARE(::mkdir(build.c_str(), 0700), 0);
        writeText(build + "/app", "binary");
        for (const auto& p : {d + "/artifacts/report.pdf", build}) {
            age(p);
        }
        auto s = open(d + "/cache.db");
        QVERIFY(!s);
        QCOMPARE(s.error().code, ErrorCode::Invalid);
        QVERIFY2(s.error().message.find("fxscope-cache.tag") != std::string::npos,
                 s.error().message.c_str());
        QCOMPARE(s.error().where, d);
        QVERIFY(exists(d + "/artifacts/report.pdf") && exists(build + "/app"));
        QVERIFY(!exists(d + "/cache.db")); // nothing written there
    }

    void newAndEmptyDirectoriesAreMarked()
    {
        const std::string fresh = m_dir.path().toStdString() + "/new/deeper";
        QVERIFY(open(fresh + "/cache.db").ok());
        QVERIFY(exists(fresh + "/fxscope-cache.tag"));
        std::ifstream in(fresh + "/fxscope-cache.tag");
        std::string first, id;
        std::getline(in, first);
        std::getline(in, id);
        QCOMPARE(first, std::string("fxscope-cache-dir 1"));
        QVERIFY(id.rfind("id ", 0) == 0 && id.size() == 3 + 32);
        const std::string empty = dir("empty");
        QVERIFY(open(empty + "/cache.db").ok());
        QVERIFY(exists(empty + "/fxscope-cache.tag"));
        // A marker that is a link, or not fxscope's, is refused.
        const std::string linked = dir("linked-marker");
        QCOMPARE(::symlink((fresh + "/fxscope-cache.tag").c_str(),
                           (linked + "/fxscope-cache.tag").c_str()), 0);
        QVERIFY(!open(linked + "/cache.db"));
        const std::string other = dir("other-marker");
        writeText(other + "/fxscope-cache.tag", "something else\n");
        QVERIFY(!open(other + "/cache.db"));
    }

    // A cache directory of the release before markers: fxscope's tables, no application id,
    // no marker, artifacts/ and locks/ beside it. Adopted, entries kept.
    void previousReleaseCacheIsAdopted()
    {
        const std::string d = dir("legacy");
        const std::string db = d + "/cache.db";
        QVERIFY(storeWithAFile(db));
        QVERIFY(::unlink((d + "/fxscope-cache.tag").c_str()) == 0);
        rawExec(db, "PRAGMA application_id = 0");
        QCOMPARE(rawText(db, "PRAGMA application_id"), std::string("0;"));
        auto s = open(db);
        QVERIFY2(s.ok(), s.ok() ? "" : s.error().toString().c_str());
        QVERIFY(exists(d + "/fxscope-cache.tag"));
        QCOMPARE(int((*s)->lookup(regionEntry("A").key)->state), int(LookupState::Hit));
        QVERIFY((*s)->gc(1LL << 40).ok());
        s->reset();
        QCOMPARE(rawText(db, "PRAGMA application_id"), std::to_string(0x66787363) + ";");
    }

    // Another program's SQLite database, through a link or copied in: refused, no tables.
    void foreignDatabaseIsRefused()
    {
        const std::string other = dir("otherapp") + "/app.db";
        rawExec(other, "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT)");
        const std::string linkDir = dir("link-to-foreign");
        QCOMPARE(::symlink(other.c_str(), (linkDir + "/cache.db").c_str()), 0);
        auto linked = open(linkDir + "/cache.db");
        QVERIFY(!linked);
        QCOMPARE(linked.error().code, ErrorCode::Invalid);
        QVERIFY2(linked.error().found == "a symbolic link", linked.error().found.c_str());
        QCOMPARE(rawText(other, "SELECT name FROM sqlite_master WHERE type = 'table'"),
                 std::string("notes;"));
        // Copied into an empty directory (whose marker gets written), still not fxscope's.
        const std::string copyDir = dir("copy-of-foreign");
        std::ifstream src(other, std::ios::binary);
        std::ofstream(copyDir + "/cache.db", std::ios::binary) << src.rdbuf();
        QCOMPARE(::chmod((copyDir + "/cache.db").c_str(), 0600), 0);
        auto copied = open(copyDir + "/cache.db");
        QVERIFY(!copied);
        QCOMPARE(copied.error().code, ErrorCode::Invalid);
        QVERIFY2(copied.error().message.find("not an fxscope cache database") != std::string::npos,
                 copied.error().message.c_str());
        QVERIFY2(copied.error().found.find("notes") != std::string::npos,
                 copied.error().found.c_str());
        QCOMPARE(rawText(copyDir + "/cache.db",
                         "SELECT name FROM sqlite_master WHERE type = 'table'"),
                 std::string("notes;"));
        QCOMPARE(rawText(copyDir + "/cache.db", "PRAGMA journal_mode"), std::string("delete;"));
    }

    // artifacts/ replaced by a link to a folder of the user's: gc refuses, the folder keeps
    // every file (also ones named like artifacts), and nothing is written through the link.
    void artifactsLinkIsNeverFollowed()
    {
        const std::string d = dir("artifacts-link");
        auto store = storeWithAFile(d + "/cache.db");
        QVERIFY(store);
        const std::string victim = dir("victim");
        const std::string keyName = regionEntry("orphan").key + ".so";
        for (const auto& n : {std::string("a.txt"), std::string("b.txt"), keyName}) {
            writeText(victim + "/" + n, "mine");
            age(victim + "/" + n);
        }
        QVERIFY(removeTree(d + "/artifacts").ok());
        QCOMPARE(::symlink(victim.c_str(), (d + "/artifacts").c_str()), 0);
        auto gc = store->gc(0);
        QVERIFY(!gc);
        QVERIFY2(gc.error().message.find("symbolic link") != std::string::npos,
                 gc.error().message.c_str());
        for (const auto& n : {std::string("a.txt"), std::string("b.txt"), keyName}) {
            QVERIFY2(exists(victim + "/" + n), n.c_str());
        }
        auto hit = store->lookup(regionEntry("A").key);
        QVERIFY(hit && hit->entry);
        QVERIFY(!store->materialize(*hit->entry, ArtifactKind::CppSource));
        QVERIFY(!exists(victim + "/" + regionEntry("A").key + ".cpp"));
        // locks/ likewise.
        const std::string lockVictim = dir("lock-victim");
        QCOMPARE(::symlink(lockVictim.c_str(), (d + "/locks").c_str()), 0);
        QVERIFY(!store->lockBuild(regionEntry("A").key, 0));
        QVERIFY(!exists(lockVictim + "/" + regionEntry("A").key));
    }

    // In its own directory gc deletes only the names it creates.
    void gcDeletesOnlyItsOwnNames()
    {
        const std::string d = dir("own-names");
        auto store = storeWithAFile(d + "/cache.db");
        QVERIFY(store);
        const std::string dead = d + "/build-" + std::to_string(deadPid()) + "-abc123";
        const std::string notOurs = d + "/build-77777-release";
        const std::string notes = d + "/notes.txt";
        const std::string pdf = d + "/artifacts/report.pdf";
        const std::string orphan = d + "/artifacts/" + regionEntry("orphan").key + ".so";
        const std::string outside = dir("outside");
        writeText(outside + "/keep.txt", "keep");
        QCOMPARE(::mkdir(dead.c_str(), 0700), 0);
        QCOMPARE(::mkdir(notOurs.c_str(), 0700), 0);
        // A build directory holding a link out: the link goes, never its target.
        QCOMPARE(::symlink(outside.c_str(), (dead + "/out").c_str()), 0);
        for (const auto& p : {notes, pdf, orphan}) {
            writeText(p, "x");
        }
        for (const auto& p : {dead, notOurs, notes, pdf, orphan}) {
            age(p);
        }
        auto gc = store->gc(1LL << 40);
        QVERIFY2(gc.ok(), gc.ok() ? "" : gc.error().toString().c_str());
        QCOMPARE(gc->buildDirsRemoved, 1);
        QCOMPARE(gc->filesRemoved, 1);
        QVERIFY(!exists(dead) && !exists(orphan));
        QVERIFY(exists(notOurs) && exists(notes) && exists(pdf));
        QVERIFY(exists(outside + "/keep.txt"));
        // A marker that went missing since: gc refuses.
        QCOMPARE(::unlink((d + "/fxscope-cache.tag").c_str()), 0);
        QVERIFY(!store->gc(1LL << 40));
    }
};

QTEST_GUILESS_MAIN(TestCacheOwnership)
#include "tst_cache_ownership.moc"

FXSCOPE_TEST_END
