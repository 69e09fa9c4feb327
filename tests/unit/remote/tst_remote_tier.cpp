// The remote tier against a real redis-server started per test: URL parsing, round trip,
// corrupted values and wrong HMACs refused, a key file with loose permissions refused, no key
// (metadata only), a server down, killed mid-run or hung (offline, one warning, a later tier
// reconnects), the build lock, and ls/verify/gc's side (list, prefixes, eviction order).
#include "core/cache/cache_key.h"
#include "core/remote/remote_tier.h"
#include "core/remote/team_key.h"
#include "core/util/digest.h"
#include "tests/test_file.h"
#include "tests/unit/remote/redis_server.h"
#include "tests/unit/remote/remote_entries.h"

#include <QFile>
#include <QtTest>

#include <sys/stat.h>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::remote;
using fxs::remote::testing::sampleEntry;

namespace {

cache::Artifact artifact(int n)
{
    return cache::Artifact::hostBuild(std::string(8192, char('a' + n)), "// source " +
                                                                            std::to_string(n));
}

} // namespace

class TestRemoteTier : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<test::RedisServer> m_server;

    std::unique_ptr<RemoteTier> open(std::optional<std::string> key, int commandMs = 1000)
    {
        RemoteOptions o;
        o.url = m_server->urlText();
        o.teamKey = std::move(key);
        o.timeouts.commandMs = commandMs;
        auto t = RemoteTier::open(o);
        return t ? std::move(*t) : nullptr;
    }
    std::unique_ptr<RedisClient> client()
    {
        auto c = RedisClient::connect(m_server->url());
        return c ? std::move(*c) : nullptr;
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (test::RedisServer::executable().isEmpty()) {
            QSKIP("redis-server is not installed (Debian package redis-server)");
        }
    }
    void init()
    {
        qunsetenv("FXSCOPE_CACHE_KEY");
        qunsetenv("FXSCOPE_CACHE_KEY_FILE");
        m_server = std::make_unique<test::RedisServer>();
        QString error;
        QVERIFY2(m_server->start(error), qPrintable(error));
    }
    void cleanup() { m_server.reset(); }

    void parseUrl_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("host"); // empty: an error whose `expected` holds `port`
        QTest::addColumn<QString>("port");
        QTest::addColumn<int>("db");
        QTest::newRow("default port") << "redis://cachehost" << "cachehost" << "6379" << 0;
        QTest::newRow("port and db") << "redis://10.0.0.2:7000/3" << "10.0.0.2" << "7000" << 3;
        QTest::newRow("ipv6") << "redis://[::1]:6380/1" << "::1" << "6380" << 1;
        QTest::newRow("scheme") << "http://cachehost:80" << "" << "the scheme redis://" << 0;
        QTest::newRow("no host") << "redis://:6379" << "" << "a host name or address" << 0;
        QTest::newRow("port 0") << "redis://h:0" << "" << "a port number 1-65535" << 0;
        QTest::newRow("port big") << "redis://h:70000" << "" << "a port number 1-65535" << 0;
        QTest::newRow("port text") << "redis://h:12x" << "" << "a port number 1-65535" << 0;
        QTest::newRow("empty port") << "redis://h:" << "" << "a port after ':'" << 0;
        QTest::newRow("db text") << "redis://h:1/x" << "" << "a database number after '/'" << 0;
        QTest::newRow("password") << "redis://u:p@h:1" << "" << "host:port without credentials"
                                  << 0;
    }
    void parseUrl()
    {
        QFETCH(QString, text);
        QFETCH(QString, host);
        QFETCH(QString, port);
        QFETCH(int, db);
        auto url = parseRedisUrl(text.toStdString());
        if (host.isEmpty()) {
            QVERIFY(!url);
            QCOMPARE(url.error().code, ErrorCode::Parse);
            QCOMPARE(QString::fromStdString(url.error().expected), port);
            QCOMPARE(QString::fromStdString(url.error().where), text);
            return;
        }
        QVERIFY2(url, url ? "" : url.error().toString().c_str());
        QCOMPARE(QString::fromStdString(url->host), host);
        QCOMPARE(url->port, port.toInt());
        QCOMPARE(url->db, db);
    }

    void roundTrip()
    {
        auto tier = open("team secret");
        QVERIFY(tier && tier->online() && tier->hasKey());
        QVERIFY(tier->warnings().empty());
        const auto e = sampleEntry(1);
        QVERIFY(tier->publish(e, artifact(1)));
        QVERIFY(!tier->publish(e, artifact(2))); // the first writer wins
        const FetchResult f = tier->fetch(e.key);
        QCOMPARE(f.state, FetchState::Hit);
        QCOMPARE(f.entry->info.title, std::string("r1"));
        QCOMPARE(f.entry->info.components, e.components);
        QCOMPARE(*f.entry->artifact.bytesOf(cache::ArtifactKind::SharedObject),
                 *artifact(1).bytesOf(cache::ArtifactKind::SharedObject));
        QCOMPARE(tier->fetch(sampleEntry(2).key).state, FetchState::Miss);
        auto all = tier->list();
        QVERIFY(all && all->size() == 1);
        QCOMPARE(all->front().soBytes, 8192);
        QVERIFY(all->front().lastHitMs > 0); // the hit refreshed its access time
        auto region = tier->entriesOfRegion(e.regionDigest);
        QVERIFY(region && region->size() == 1 && region->front().key == e.key);
        QVERIFY(tier->entriesOfRegion(sampleEntry(2).regionDigest)->empty());
        auto key = tier->resolvePrefix(e.key.substr(0, 6));
        QVERIFY(key && *key == e.key);
        auto v = tier->verify();
        QVERIFY(v && v->checked == 1 && v->corrupt.empty() && v->integrity == "ok");
    }

    void corruptedValueIsRefused()
    {
        auto tier = open("team secret");
        const auto e = sampleEntry(1);
        QVERIFY(tier->publish(e, artifact(1)));
        auto c = client();
        const std::string blobKey = "fxscope:blob:" + e.key;
        auto blob = c->get(blobKey);
        QVERIFY(blob && *blob);
        std::string bad = **blob;
        bad[bad.size() / 2] ^= 1;
        QVERIFY(c->set(blobKey, bad));
        const FetchResult f = tier->fetch(e.key);
        QCOMPARE(f.state, FetchState::Rejected);
        QCOMPARE(f.reason, cache::Reason::MissRemoteChecksum);
        QVERIFY(!f.entry);
        QVERIFY(f.problem.find("SHA-256") != std::string::npos);
        auto v = tier->verify();
        QVERIFY(v && v->corrupt.size() == 1 && v->corrupt[0].first == e.key);
        // A blob without its metadata is refused too.
        QVERIFY(c->del({"fxscope:meta:" + e.key}));
        QCOMPARE(tier->fetch(e.key).state, FetchState::Rejected);
    }

    void wrongHmacIsRefused()
    {
        const auto e = sampleEntry(1);
        QVERIFY(open("team A")->publish(e, artifact(1)));
        const FetchResult other = open("team B")->fetch(e.key);
        QCOMPARE(other.state, FetchState::Rejected);
        QCOMPARE(other.reason, cache::Reason::MissRemoteHmac);
        QVERIFY(!other.entry);

        // Someone without the key swaps the artifact and fixes up the checksum: the HMAC fails.
        auto c = client();
        const std::string forged = cache::serializeArtifact(artifact(7));
        auto meta = c->get("fxscope:meta:" + e.key);
        QVERIFY(meta && *meta);
        std::string m = **meta;
        const std::string oldSha = toHex(sha256(*c->get("fxscope:blob:" + e.key).value()));
        const auto at = m.find(oldSha);
        QVERIFY(at != std::string::npos);
        m.replace(at, oldSha.size(), toHex(sha256(forged)));
        QVERIFY(c->setAll({{"fxscope:meta:" + e.key, m}, {"fxscope:blob:" + e.key, forged}}));
        const FetchResult f = open("team A")->fetch(e.key);
        QCOMPARE(f.state, FetchState::Rejected);
        QCOMPARE(f.reason, cache::Reason::MissRemoteHmac);
        // An unsigned value is refused as well.
        m.replace(0, m.find('\n'), "unsigned");
        QVERIFY(c->set("fxscope:meta:" + e.key, m));
        QCOMPARE(open("team A")->fetch(e.key).reason, cache::Reason::MissRemoteHmac);
    }

    void noKeyReadsMetadataOnly()
    {
        const auto e = sampleEntry(1);
        QVERIFY(open("team secret")->publish(e, artifact(1)));
        auto tier = open(std::nullopt); // and no key in the environment
        QVERIFY(tier && tier->online() && !tier->hasKey());
        QCOMPARE(tier->warnings().size(), std::size_t(1));
        QVERIFY(tier->warnings()[0].find("no team key") != std::string::npos);
        const FetchResult f = tier->fetch(e.key);
        QCOMPARE(f.state, FetchState::NoKey);
        QCOMPARE(f.reason, cache::Reason::MissRemoteNoKey);
        QVERIFY(!f.entry);
        QVERIFY(f.info && f.info->title == "r1");
        QVERIFY(!tier->publish(sampleEntry(2), artifact(2)));
        QVERIFY(!tier->tryLock(sampleEntry(2).key, 1000));
        auto all = tier->list();
        QVERIFY(all && all->size() == 1);
        QCOMPARE(tier->warnings().size(), std::size_t(1)); // said once
        auto v = tier->verify();
        QVERIFY(v && v->corrupt.empty() && v->integrity.find("HMACs not checked") != std::string::npos);
    }

    void keyFileWithLoosePermissionsIsRefused()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("team.key");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("s3cret\n");
        f.close();
        QVERIFY(::chmod(path.toLocal8Bit().constData(), 0644) == 0);
        qputenv("FXSCOPE_CACHE_KEY_FILE", path.toLocal8Bit());
        RemoteOptions o;
        o.url = m_server->urlText();
        auto refused = RemoteTier::open(o);
        QVERIFY(!refused);
        QCOMPARE(refused.error().code, ErrorCode::Invalid);
        QVERIFY(refused.error().found.find("mode 0644") != std::string::npos);
        QVERIFY(refused.error().message.find("chmod 600") != std::string::npos);
        QVERIFY(::chmod(path.toLocal8Bit().constData(), 0600) == 0);
        auto key = readKeyFile(path.toStdString());
        QVERIFY(key && *key == "s3cret"); // the newline is not part of the key
        auto tier = RemoteTier::open(o);
        QVERIFY(tier && (*tier)->hasKey());
        // The same key from the variable reads the file's entries.
        QVERIFY((*tier)->publish(sampleEntry(1), artifact(1)));
        qunsetenv("FXSCOPE_CACHE_KEY_FILE");
        qputenv("FXSCOPE_CACHE_KEY", "s3cret");
        auto byVar = RemoteTier::open(o);
        QVERIFY(byVar);
        QCOMPARE((*byVar)->fetch(sampleEntry(1).key).state, FetchState::Hit);
    }

    void serverDownMeansOfflineWithOneWarning()
    {
        RemoteOptions o;
        o.url = "redis://127.0.0.1:" + std::to_string(test::RedisServer::freePort());
        o.teamKey = "k";
        auto tier = RemoteTier::open(o);
        QVERIFY(tier); // not an error: the run goes on locally
        QVERIFY(!(*tier)->online());
        QCOMPARE((*tier)->warnings().size(), std::size_t(1));
        QVERIFY((*tier)->warnings()[0].find("local cache only") != std::string::npos);
        QCOMPARE((*tier)->fetch(sampleEntry(1).key).state, FetchState::Unavailable);
        QVERIFY(!(*tier)->publish(sampleEntry(1), artifact(1)));
        auto ls = (*tier)->list();
        QVERIFY(!ls && ls.error().code == ErrorCode::Io);
        QCOMPARE((*tier)->warnings().size(), std::size_t(1));
    }

    void killedMidRunThenReconnects()
    {
        auto tier = open("k");
        QVERIFY(tier->publish(sampleEntry(1), artifact(1)));
        const int port = m_server->port();
        m_server->kill();
        QCOMPARE(tier->fetch(sampleEntry(1).key).state, FetchState::Unavailable);
        QCOMPARE(tier->fetch(sampleEntry(2).key).state, FetchState::Unavailable);
        QVERIFY(!tier->publish(sampleEntry(3), artifact(3)));
        QVERIFY(!tier->online());
        QCOMPARE(tier->warnings().size(), std::size_t(1));
        QVERIFY(tier->warnings()[0].find("local cache only") != std::string::npos);
        // A later run (a new tier) reconnects to a server that is back.
        m_server = std::make_unique<test::RedisServer>();
        QString error;
        QVERIFY2(m_server->start(error, port), qPrintable(error));
        auto again = open("k");
        QVERIFY(again->online());
        QVERIFY(again->publish(sampleEntry(1), artifact(1)));
        QCOMPARE(again->fetch(sampleEntry(1).key).state, FetchState::Hit);
    }

    void hungServerTimesOut()
    {
        auto tier = open("k", 300);
        QVERIFY(tier->publish(sampleEntry(1), artifact(1)));
        m_server->pause();
        QCOMPARE(tier->fetch(sampleEntry(1).key).state, FetchState::Unavailable);
        QCOMPARE(tier->fetch(sampleEntry(1).key).state, FetchState::Unavailable); // at once now
        QCOMPARE(tier->warnings().size(), std::size_t(1));
    }

    void buildLock()
    {
        auto a = open("k");
        auto b = open("k");
        const auto e = sampleEntry(1);
        QVERIFY(a->tryLock(e.key, 60000));
        QVERIFY(!b->tryLock(e.key, 60000));
        a->unlock(e.key); // the builder gave up without an entry: the waiter builds
        QCOMPARE(b->waitFor(e.key, 60000).state, FetchState::Miss);
        QVERIFY(a->tryLock(e.key, 60000));
        QVERIFY(a->publish(e, artifact(1)));
        QCOMPARE(b->waitFor(e.key, 60000).state, FetchState::Hit);
        QVERIFY(a->tryLock(sampleEntry(2).key, 50)); // expires when its holder dies
        QTest::qWait(200);
        QVERIFY(b->tryLock(sampleEntry(2).key, 1000));
    }

    void gcEvictsLeastRecentlyUsed()
    {
        auto tier = open("k");
        for (int n = 1; n <= 3; ++n) {
            QVERIFY(tier->publish(sampleEntry(n, 1000 * n), artifact(n)));
        }
        QCOMPARE(tier->fetch(sampleEntry(1).key).state, FetchState::Hit); // 1 is now the newest
        auto total = tier->totalBytes();
        QVERIFY(total && *total > 3 * 8192);
        auto gc = tier->gc(*total - 1);
        QVERIFY(gc && gc->removed == 1 && gc->bytesBefore == *total && gc->bytesAfter < *total);
        QCOMPARE(tier->fetch(sampleEntry(2).key).state, FetchState::Miss); // the oldest went
        QCOMPARE(tier->fetch(sampleEntry(1).key).state, FetchState::Hit);
        QVERIFY(tier->remove(sampleEntry(3).key));
        QVERIFY(tier->entriesOfRegion(sampleEntry(3).regionDigest)->empty());
        auto all = tier->gc(0);
        QVERIFY(all && all->removed == 1 && all->bytesAfter == 0);
        QVERIFY(tier->list()->empty());
    }
};

QTEST_GUILESS_MAIN(TestRemoteTier)
#include "tst_remote_tier.moc"

FXSCOPE_TEST_END
