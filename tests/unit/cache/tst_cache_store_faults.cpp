// The store when its file or disk fails: a damaged database (not a database, scrambled schema,
// truncated) opens Damaged and verify reports it; moving it aside keeps every byte; a 0-byte
// file is said to be empty; a full disk (RLIMIT_FSIZE in a child process) serves hits
// read-only, says "disk full" and still lets gc remove dead builds; the build lock makes a
// second holder wait, and a killed holder frees it at once.
#include "core/cache/cache_store.h"
#include "core/cache/database_file.h"
#include "tests/test_file.h"
#include "tests/unit/cache/cache_test_util.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <thread>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::cache;
using fxs::cache::testing::regionEntry;

namespace {

QByteArray readAll(const std::string& path)
{
    QFile f(QString::fromStdString(path));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeAll(const std::string& path, const QByteArray& bytes)
{
    QFile f(QString::fromStdString(path));
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(bytes), bytes.size());
    f.close();
    QCOMPARE(::chmod(path.c_str(), 0600), 0);
}

// Runs f in a child process and returns its exit status (f's result; -1 when it crashed). The
// child does only core work, so forking the test process is safe.
int inChild(const std::function<int()>& f)
{
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::_exit(f());
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// What a full disk does to writes, deterministically: every write that extends a file fails
// (EFBIG, the signal ignored as a full disk sends none).
void fillTheDisk(rlim_t bytesAllowed)
{
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{bytesAllowed, bytesAllowed};
    ::setrlimit(RLIMIT_FSIZE, &limit);
}

} // namespace

class TestCacheStoreFaults : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string dbPath(const char* name) const
    {
        const std::string dir = m_dir.path().toStdString() + "/" + name;
        ::mkdir(dir.c_str(), 0700);
        return dir + "/cache.db";
    }
    static std::unique_ptr<CacheStore> openStore(const std::string& path)
    {
        StoreOptions o;
        o.path = path;
        auto s = CacheStore::open(o);
        if (!s) {
            qWarning("%s", s.error().toString().c_str());
            return nullptr;
        }
        return std::move(*s);
    }
    // A closed database holding n entries of blobBytes each.
    static bool makeDatabase(const std::string& path, int n, std::size_t blobBytes)
    {
        auto store = openStore(path);
        for (int i = 0; store && i < n; ++i) {
            const auto art = Artifact::hostBuild(std::string(blobBytes, char('a' + i % 26)), "s");
            if (!store->insert(regionEntry("region " + std::to_string(i)), art)) {
                return false;
            }
        }
        return store != nullptr;
    }
    // Opens a damaged database: it must open Damaged (or find it in verify), name the file and
    // the fix, refuse writes, report the damage from verify and leave the file as it was.
    static void expectDamageReported(const std::string& path)
    {
        const QByteArray before = readAll(path);
        auto store = openStore(path);
        QVERIFY(store);
        auto v = store->verify();
        QVERIFY(v.ok());
        QVERIFY2(!v->damage.empty(), v->integrity.c_str());
        QCOMPARE(store->condition(), StoreCondition::Damaged);
        const std::string warning = store->conditionWarning();
        QVERIFY2(warning.find(path) != std::string::npos, warning.c_str());
        QVERIFY2(warning.find("cache --cache " + path + " repair") != std::string::npos,
                 warning.c_str());
        auto ins = store->insert(regionEntry("new"), Artifact::hostBuild("so", "src"));
        QVERIFY(!ins.ok());
        QCOMPARE(ins.error().code, ErrorCode::Checksum);
        QVERIFY(ins.error().message.find("cannot prepare") == std::string::npos);
        store.reset();
        QCOMPARE(readAll(path), before);
    }

private Q_SLOTS:
    void notADatabaseIsReportedDamaged()
    {
        const std::string path = dbPath("notadb");
        writeAll(path, QByteArray("this is not an SQLite database\n").repeated(300));
        expectDamageReported(path);
    }

    void scrambledSchemaIsReportedDamaged()
    {
        const std::string path = dbPath("scrambled");
        QVERIFY(makeDatabase(path, 3, 1000));
        QByteArray bytes = readAll(path);
        QVERIFY(bytes.size() > 4096);
        // Page 1 after the 100-byte header holds the schema's b-tree.
        for (int i = 100; i < 4096; ++i) {
            bytes[i] = char((i * 131) & 0xff);
        }
        writeAll(path, bytes);
        expectDamageReported(path);
    }

    void truncatedFileIsReportedDamaged()
    {
        const std::string path = dbPath("truncated");
        QVERIFY(makeDatabase(path, 20, 20000));
        QByteArray bytes = readAll(path);
        QVERIFY(bytes.size() > 200000);
        writeAll(path, bytes.left(bytes.size() / 2));
        expectDamageReported(path);
    }

    void movingAsideKeepsEveryByte()
    {
        const std::string path = dbPath("aside");
        const QByteArray junk = QByteArray("junk ").repeated(1000);
        writeAll(path, junk);
        writeAll(path + "-wal", "wal bytes");
        auto moved = moveDatabaseAside(path);
        QVERIFY(moved.ok());
        QVERIFY2(moved->rfind(path + ".corrupt-", 0) == 0, moved->c_str());
        QCOMPARE(readAll(*moved), junk);
        QCOMPARE(readAll(*moved + "-wal"), QByteArray("wal bytes"));
        QVERIFY(::access(path.c_str(), F_OK) != 0);
        QVERIFY(::access((path + "-wal").c_str(), F_OK) != 0);
        // A second repair in the same second takes another name; nothing is overwritten.
        writeAll(path, "more junk");
        auto again = moveDatabaseAside(path);
        QVERIFY(again.ok());
        QVERIFY(*again != *moved);
        QCOMPARE(readAll(*moved), junk);
        auto fresh = openStore(path);
        QVERIFY(fresh);
        QCOMPARE(fresh->condition(), StoreCondition::Healthy);
        QVERIFY(fresh->openNotice().find("did not exist") != std::string::npos);
        QVERIFY(!moveDatabaseAside(dbPath("nothing-here")).ok());
    }

    void emptyFileIsNotSilentlyOk()
    {
        const std::string path = dbPath("empty");
        writeAll(path, QByteArray());
        auto store = openStore(path);
        QVERIFY(store);
        QCOMPARE(store->condition(), StoreCondition::Healthy);
        auto v = store->verify();
        QVERIFY(v.ok());
        QVERIFY2(v->notice.find("empty (0-byte)") != std::string::npos, v->notice.c_str());
        QVERIFY(v->damage.empty());
        store.reset();
        // Opened again, it is an existing (empty) cache: nothing to say.
        store = openStore(path);
        QVERIFY(store);
        QVERIFY(store->openNotice().empty());
    }

    void fullDiskServesHitsReadOnly()
    {
        const std::string path = dbPath("full");
        const EntryInfo a = regionEntry("A");
        {
            auto store = openStore(path);
            QVERIFY(store);
            QVERIFY(store->insert(a, Artifact::hostBuild("so-a", "src-a")).ok());
            auto hit = store->lookup(a.key);
            QVERIFY(hit.ok() && hit->entry);
            QVERIFY(store->materialize(*hit->entry, ArtifactKind::SharedObject).ok());
        }
        // Nothing can be written at all: not even the WAL index, so the store opens read-only.
        const int rc = inChild([&] {
            fillTheDisk(0);
            auto store = CacheStore::open(StoreOptions{path});
            if (!store) {
                return 10;
            }
            if ((*store)->condition() != StoreCondition::ReadOnly ||
                (*store)->conditionWarning().find("disk full") == std::string::npos) {
                return 11;
            }
            auto hit = (*store)->lookup(a.key);
            if (!hit || hit->state != LookupState::Hit) {
                return 12;
            }
            if (!(*store)->materialize(*hit->entry, ArtifactKind::SharedObject)) {
                return 13;
            }
            auto ins = (*store)->insert(regionEntry("B"), Artifact::hostBuild("so-b", "src-b"));
            return ins ? 14 : ins.error().message.find("disk full") == std::string::npos ? 15 : 0;
        });
        QCOMPARE(rc, 0);
    }

    void gcOnAFullDiskRemovesDeadBuilds()
    {
        const std::string path = dbPath("fullgc");
        QVERIFY(makeDatabase(path, 1, 100));
        const pid_t gone = ::fork();
        if (gone == 0) {
            ::_exit(0);
        }
        ::waitpid(gone, nullptr, 0);
        const std::string dead = parentDir(path) + "/build-" + std::to_string(gone) + "-abcdef";
        QCOMPARE(::mkdir(dead.c_str(), 0700), 0);
        const int rc = inChild([&] {
            fillTheDisk(0);
            auto store = CacheStore::open(StoreOptions{path});
            if (!store || (*store)->condition() != StoreCondition::ReadOnly) {
                return 10;
            }
            auto gc = (*store)->gc(0); // no eviction on a read-only store: the entry stays
            return !gc ? 11 : gc->buildDirsRemoved != 1 ? 12 : gc->removed != 0 ? 13 : 0;
        });
        QCOMPARE(rc, 0);
        QVERIFY(::access(dead.c_str(), F_OK) != 0);
    }

    void diskFillingUpMidRunKeepsServingHits()
    {
        const std::string path = dbPath("filling");
        const EntryInfo a = regionEntry("A");
        QVERIFY(makeDatabase(path, 0, 0));
        {
            auto store = openStore(path);
            QVERIFY(store && store->insert(a, Artifact::hostBuild("so-a", "src-a")).ok());
        }
        const int rc = inChild([&] {
            auto store = CacheStore::open(StoreOptions{path});
            if (!store || (*store)->condition() != StoreCondition::Healthy) {
                return 10;
            }
            fillTheDisk(256 * 1024); // the WAL cannot take a 1 MB blob
            auto ins = (*store)->insert(regionEntry("big"),
                                        Artifact::hostBuild(std::string(1 << 20, 'x'), "s"));
            if (ins || ins.error().message.rfind("disk full", 0) != 0) {
                return 11;
            }
            if ((*store)->condition() != StoreCondition::ReadOnly) {
                return 12;
            }
            auto hit = (*store)->lookup(a.key);
            return hit && hit->state == LookupState::Hit ? 0 : 13;
        });
        QCOMPARE(rc, 0);
    }

    void buildLockMakesTheSecondHolderWait()
    {
        auto store = openStore(dbPath("lock"));
        QVERIFY(store);
        const std::string key = regionEntry("A").key;
        auto first = store->lockBuild(key, 0);
        QVERIFY(first.ok() && first->held() && !first->waited());
        const auto t0 = std::chrono::steady_clock::now();
        auto second = store->lockBuild(key, 200);
        QVERIFY(second.ok());
        QVERIFY(!second->held()); // timed out: the caller builds without it
        QVERIFY(second->waited());
        QVERIFY(std::chrono::steady_clock::now() - t0 >= std::chrono::milliseconds(200));
        first = store->lockBuild(regionEntry("B").key, 0); // the old lock goes with its object
        auto third = store->lockBuild(key, 0);
        QVERIFY(third.ok() && third->held());
        QVERIFY(!store->lockBuild("../escape", 0).ok());
    }

    void killedBuilderDoesNotBlock()
    {
        auto store = openStore(dbPath("killed"));
        QVERIFY(store);
        const std::string key = regionEntry("A").key;
        int ready[2];
        QCOMPARE(::pipe(ready), 0);
        const pid_t builder = ::fork();
        if (builder == 0) {
            auto lock = store->lockBuild(key, 0);
            const char c = lock && lock->held() ? 'y' : 'n';
            (void)!::write(ready[1], &c, 1);
            ::pause(); // a builder that hangs until killed
            ::_exit(0);
        }
        char c = 0;
        QCOMPARE(::read(ready[0], &c, 1), ssize_t(1));
        QCOMPARE(c, 'y');
        std::thread killer([builder] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            ::kill(builder, SIGKILL);
        });
        const auto t0 = std::chrono::steady_clock::now();
        auto lock = store->lockBuild(key, 60000);
        const auto waited = std::chrono::steady_clock::now() - t0;
        killer.join();
        ::waitpid(builder, nullptr, 0);
        QVERIFY(lock.ok() && lock->held() && lock->waited());
        QVERIFY(waited < std::chrono::seconds(10)); // freed by the kill, not the timeout
    }

    void gcSweepsLocksNobodyHolds()
    {
        auto store = openStore(dbPath("locksweep"));
        QVERIFY(store);
        const std::string held = regionEntry("held").key;
        const std::string stale = regionEntry("stale").key;
        auto lock = store->lockBuild(held, 0);
        QVERIFY(lock.ok() && lock->held());
        { auto gone = store->lockBuild(stale, 0); }
        const timeval old[2] = {{std::time(nullptr) - 7200, 0}, {std::time(nullptr) - 7200, 0}};
        for (const auto& k : {held, stale}) {
            QCOMPARE(::utimes((store->directory() + "/locks/" + k).c_str(), old), 0);
        }
        QVERIFY(store->gc(1LL << 40).ok());
        QVERIFY(::access((store->directory() + "/locks/" + held).c_str(), F_OK) == 0);
        QVERIFY(::access((store->directory() + "/locks/" + stale).c_str(), F_OK) != 0);
    }
};

QTEST_GUILESS_MAIN(TestCacheStoreFaults)
#include "tst_cache_store_faults.moc"

FXSCOPE_TEST_END
