// The remote tier in the compile flow, against a real redis-server per test: four processes
// with their own local stores build one region once and hit it remotely three times; a remote
// hit is stored locally and says so; a miss is explained against the nearest remote entry;
// Redis killed mid-run leaves the run local with one warning; corrupted values, wrong HMACs and
// a missing key are never loaded (the region is rebuilt and verified).
#include "core/cache/cache_key.h"
#include "tests/test_file.h"
#include "tests/unit/remote/redis_server.h"
#include "tests/unit/remote/remote_compile_support.h"

#include <QProcess>
#include <QtTest>

#include <algorithm>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::remote;
using compile::RegionState;
using cache::Reason;

class TestRemoteCompile : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<test::RedisServer> m_server;
    QTemporaryDir m_dir;
    int m_stores = 0;
    test::SmallRegion m_small;

    std::unique_ptr<RemoteTier> tier(std::optional<std::string> key = "team key")
    {
        RemoteOptions o;
        o.url = m_server->urlText();
        o.teamKey = std::move(key);
        auto t = RemoteTier::open(o);
        return t ? std::move(*t) : nullptr;
    }
    // A fresh local store: another machine.
    std::unique_ptr<cache::CacheStore> machine()
    {
        return test::openLocalStore(m_dir.filePath("m" + QString::number(++m_stores)).toStdString());
    }
    std::string blobKey(const compile::RegionOutcome& o) { return "fxscope:blob:" + o.key; }

private Q_SLOTS:
    void initTestCase()
    {
        if (test::RedisServer::executable().isEmpty()) {
            QSKIP("redis-server is not installed (Debian package redis-server)");
        }
        m_small = test::smallRegion(64);
        QVERIFY(m_small.graph);
    }
    void init()
    {
        m_server = std::make_unique<test::RedisServer>();
        QString error;
        QVERIFY2(m_server->start(error), qPrintable(error));
    }
    void cleanup() { m_server.reset(); }

    void fourProcessesBuildOnce()
    {
        std::vector<std::unique_ptr<QProcess>> procs;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("FXSCOPE_CACHE_KEY", "team key");
        env.remove("FXSCOPE_CACHE_KEY_FILE");
        for (int i = 0; i < 4; ++i) {
            auto p = std::make_unique<QProcess>();
            p->setProcessEnvironment(env);
            p->start(REMOTE_COMPILER_PATH,
                     {m_dir.filePath("p" + QString::number(i)), QString::fromStdString(
                                                                    m_server->urlText())});
            procs.push_back(std::move(p));
        }
        QStringList results;
        for (auto& p : procs) {
            QVERIFY(p->waitForFinished(120000));
            QVERIFY2(p->exitCode() == 0, p->readAllStandardError().constData());
            results << QString::fromUtf8(p->readAllStandardOutput()).trimmed();
        }
        results.sort();
        QCOMPARE(results, QStringList({"hit remote_hit", "hit remote_hit", "hit remote_hit",
                                       "miss miss_cold"}));
        auto all = tier()->list();
        QVERIFY(all && all->size() == 1);
        QCOMPARE(all->front().status, cache::EntryStatus::Verified);
        for (int i = 0; i < 4; ++i) { // every machine now has it locally
            auto store = test::openLocalStore(m_dir.filePath("p" + QString::number(i)).toStdString());
            QVERIFY(store && store->list()->size() == 1);
        }
    }

    void remoteHitIsStoredLocallyAndExplained()
    {
        auto t = tier();
        auto a = machine();
        const auto built = test::compileSmall(m_small, a.get(), t.get());
        QCOMPARE(built.state, RegionState::Miss);
        QCOMPARE(built.reason, Reason::MissCold);
        auto b = machine();
        const auto hit = test::compileSmall(m_small, b.get(), t.get());
        QCOMPARE(hit.state, RegionState::Hit);
        QCOMPARE(hit.reason, Reason::RemoteHit);
        QVERIFY2(hit.headline.find("hit: remote hit (" + m_server->urlText() + "), entry " +
                                   hit.key.substr(0, 12)) == 0,
                 hit.headline.c_str());
        QCOMPARE(hit.outputs.size(), std::size_t(1));
        // Stored locally: the next run on that machine is a local hit.
        const auto again = test::compileSmall(m_small, b.get(), t.get());
        QCOMPARE(again.reason, Reason::Hit);
        // Another shape on a third machine: explained against the remote entry.
        const test::SmallRegion wider = test::smallRegion(96);
        auto c = machine();
        const auto miss = test::compileSmall(wider, c.get(), t.get());
        QCOMPARE(miss.state, RegionState::Miss);
        QCOMPARE(miss.reason, Reason::MissInputShape);
        QVERIFY2(miss.headline.find("(nearest entry: " + m_server->urlText() + ")") !=
                     std::string::npos,
                 miss.headline.c_str());
        QVERIFY(t->warnings().empty());
    }

    void redisKilledMidRunStaysLocal()
    {
        auto t = tier();
        auto a = machine();
        QCOMPARE(test::compileSmall(m_small, a.get(), t.get()).reason, Reason::MissCold);
        m_server->kill();
        const test::SmallRegion wider = test::smallRegion(96);
        const auto local = test::compileSmall(wider, a.get(), t.get());
        QCOMPARE(local.state, RegionState::Miss); // built and verified, not a fallback
        QCOMPARE(local.reason, Reason::MissInputShape); // against the local entry
        QCOMPARE(test::compileSmall(wider, a.get(), t.get()).reason, Reason::Hit);
        QCOMPARE(t->warnings().size(), std::size_t(1));
        QVERIFY(t->warnings()[0].find("local cache only") != std::string::npos);
    }

    void corruptedValueIsRebuiltNotLoaded()
    {
        auto t = tier();
        auto a = machine();
        const auto built = test::compileSmall(m_small, a.get(), t.get());
        auto redis = RedisClient::connect(m_server->url());
        QVERIFY(redis);
        std::string blob = *(*redis)->get(blobKey(built)).value();
        blob[blob.size() - 100] ^= 0x20; // inside the shared object
        QVERIFY((*redis)->set(blobKey(built), blob));
        auto b = machine();
        const auto rebuilt = test::compileSmall(m_small, b.get(), t.get());
        QCOMPARE(rebuilt.state, RegionState::Miss);
        QCOMPARE(rebuilt.reason, Reason::MissRemoteChecksum);
        QVERIFY2(rebuilt.headline.find("checksum") != std::string::npos, rebuilt.headline.c_str());
        // The rebuilt entry replaced the corrupt one.
        QCOMPARE(t->fetch(built.key).state, FetchState::Hit);
    }

    void wrongHmacIsRebuiltNotLoaded()
    {
        auto teamA = tier("team A");
        auto a = machine();
        QCOMPARE(test::compileSmall(m_small, a.get(), teamA.get()).reason, Reason::MissCold);
        auto teamB = tier("team B");
        auto b = machine();
        const auto rebuilt = test::compileSmall(m_small, b.get(), teamB.get());
        QCOMPARE(rebuilt.state, RegionState::Miss);
        QCOMPARE(rebuilt.reason, Reason::MissRemoteHmac);
        QVERIFY(b->list()->size() == 1); // its own build, stored locally
    }

    void noKeyNeverLoadsRemoteArtifacts()
    {
        auto a = machine();
        const auto built = test::compileSmall(m_small, a.get(), tier().get());
        auto before = RedisClient::connect(m_server->url());
        const auto blobBefore = (*before)->get(blobKey(built));
        auto noKey = tier(std::nullopt);
        auto b = machine();
        const auto out = test::compileSmall(m_small, b.get(), noKey.get());
        QCOMPARE(out.state, RegionState::Miss);
        QCOMPARE(out.reason, Reason::MissRemoteNoKey);
        QCOMPARE(noKey->warnings().size(), std::size_t(1));
        // Nothing was written remotely (the same blob, one entry).
        QCOMPARE((*before)->get(blobKey(built))->value(), blobBefore->value());
        QCOMPARE(tier()->list()->size(), std::size_t(1));
    }
};

QTEST_GUILESS_MAIN(TestRemoteCompile)
#include "tst_remote_compile.moc"

FXSCOPE_TEST_END
