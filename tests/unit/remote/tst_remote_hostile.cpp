// The remote tier against whoever can write to the database or answer on its port: a forged or
// foreign-signed build lock is not waited on and a real one only for lockWaitMs; an unsigned
// entry whose blob lengths wrap around is reported by a keyless verify, not a crash; a key file
// that is a FIFO is named as one; a server that trickles its reply or whose SCAN never ends is
// cut off by the client's whole-operation deadlines. Bounds on time are generous (the old code
// waited 60 s or forever); they check that a call returns, not how fast.
#include "core/cache/cache_key.h"
#include "core/remote/redis_client.h"
#include "core/remote/remote_tier.h"
#include "core/remote/team_key.h"
#include "core/util/digest.h"
#include "tests/test_file.h"
#include "tests/unit/remote/fake_redis_server.h"
#include "tests/unit/remote/redis_server.h"
#include "tests/unit/remote/remote_entries.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <netdb.h>
#include <sys/stat.h>

#include <thread>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::remote;
using fxs::remote::testing::sampleEntry;

namespace {

constexpr qint64 kReturnsWithinMs = 30000;

// Format-1 blob whose two lengths add up to the 4 bytes that follow only modulo 2^64: the
// second file would start 10 bytes into a 4-byte body.
std::string wrappingBlob()
{
    return "fxscope-artifact-1\n10\n18446744073709551610\nabcd";
}

} // namespace

class TestRemoteHostile : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<test::RedisServer> m_server;

    std::unique_ptr<RemoteTier> open(std::optional<std::string> key, std::int64_t lockWaitMs = 5000)
    {
        RemoteOptions o;
        o.url = m_server->urlText();
        o.teamKey = std::move(key);
        o.lockWaitMs = lockWaitMs;
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

    // Anyone who can write to the database sets the lock key: no signature, no wait.
    void forgedLockIsNotWaitedOn_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::newRow("unsigned") << "unsigned";
        QTest::newRow("other team key") << "other key";
        QTest::newRow("garbage mac") << "garbage";
    }
    void forgedLockIsNotWaitedOn()
    {
        QFETCH(QString, kind);
        const auto e = sampleEntry(1);
        const std::string lockKey = "fxscope:lock:" + e.key;
        std::string value = "12345";
        if (kind == "other key") {
            auto other = open("another team");
            QVERIFY(other->tryLock(e.key, 60000));
            value = *client()->get(lockKey).value();
            QVERIFY(client()->del({lockKey}));
        } else if (kind == "garbage") {
            value = "fxscope-lock-1 host:1:ab 99999999999999 " + std::string(64, 'f');
        }
        QVERIFY(client()->setIfAbsent(lockKey, value, 60000).value());
        auto tier = open("team key", 60000); // it would wait the whole minute for a real lock
        bool locked = true;
        QElapsedTimer t;
        t.start();
        const FetchResult f = tier->fetchOrLock(e.key, 60000, locked);
        QVERIFY2(t.elapsed() < kReturnsWithinMs, qPrintable(QString::number(t.elapsed())));
        QCOMPARE(f.state, FetchState::Miss); // built locally
        QVERIFY(!locked);
        // The forged lock is left alone (it is not this tier's to delete).
        tier->unlock(e.key);
        QCOMPARE(*client()->get(lockKey).value(), value);
    }

    // A teammate's lock (signed with the key) is waited on, but only for lockWaitMs.
    void signedLockWaitIsBounded()
    {
        const auto e = sampleEntry(2);
        auto holder = open("team key");
        QVERIFY(holder->tryLock(e.key, 600000));
        auto waiter = open("team key", 500);
        bool locked = true;
        QElapsedTimer t;
        t.start();
        const FetchResult f = waiter->fetchOrLock(e.key, 600000, locked);
        QVERIFY2(t.elapsed() < kReturnsWithinMs, qPrintable(QString::number(t.elapsed())));
        QVERIFY(t.elapsed() >= 400); // it did wait for the holder
        QCOMPARE(f.state, FetchState::Miss);
        QVERIFY(!locked);
        waiter->unlock(e.key); // not its lock: kept
        QVERIFY(client()->get("fxscope:lock:" + e.key).value().has_value());
        holder->unlock(e.key);
        QVERIFY(!client()->get("fxscope:lock:" + e.key).value().has_value());
    }

    // Without a key a lock is never taken or waited on.
    void noKeyNeverWaits()
    {
        const auto e = sampleEntry(3);
        QVERIFY(open("team key")->tryLock(e.key, 600000));
        auto keyless = open(std::nullopt, 600000);
        QElapsedTimer t;
        t.start();
        QCOMPARE(keyless->waitFor(e.key, 600000).state, FetchState::Miss);
        QVERIFY(t.elapsed() < kReturnsWithinMs);
    }

    // Keyless `verify` decodes unsigned entries: lengths that wrap are a bad layout, reported.
    void wrappingBlobIsReportedByAKeylessVerify()
    {
        cache::Artifact a;
        QVERIFY(!cache::deserializeArtifact(wrappingBlob(), a));
        QVERIFY(!cache::deserializeArtifact("fxscope-artifact-1\n18446744073709551615\n1\n", a));
        QVERIFY(!cache::deserializeArtifact("fxscope-artifact-1\n1\n18446744073709551615\nx", a));
        // As an unsigned remote entry whose checksum is right.
        const auto e = sampleEntry(4);
        auto signer = open("team key");
        QVERIFY(signer->publish(e, cache::Artifact::hostBuild("so", "src")));
        auto c = client();
        std::string meta = *c->get("fxscope:meta:" + e.key).value();
        const std::string oldSha = toHex(sha256(*c->get("fxscope:blob:" + e.key).value()));
        meta.replace(meta.find(oldSha), oldSha.size(), toHex(sha256(wrappingBlob())));
        meta.replace(0, meta.find('\n'), "unsigned");
        QVERIFY(c->setAll({{"fxscope:meta:" + e.key, meta},
                           {"fxscope:blob:" + e.key, wrappingBlob()}}));
        auto v = open(std::nullopt)->verify();
        QVERIFY(v.ok());
        QCOMPARE(v->checked, 1);
        QCOMPARE(v->corrupt.size(), std::size_t(1));
        QVERIFY2(v->corrupt[0].second.find("layout") != std::string::npos,
                 v->corrupt[0].second.c_str());
    }

    void keyFileThatIsAFifoIsNamed()
    {
        QTemporaryDir dir;
        const std::string fifo = dir.filePath("key.fifo").toStdString();
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        auto key = readKeyFile(fifo); // returns: a FIFO is never opened
        QVERIFY(!key);
        QCOMPARE(key.error().code, ErrorCode::Invalid);
        QVERIFY2(key.error().message.find("named pipe (FIFO)") != std::string::npos,
                 key.error().message.c_str());
    }

    // Each byte comes within the per-read timeout, the reply never ends.
    void tricklingServerHitsTheDeadline()
    {
        test::FakeRedisServer fake(test::FakeRedisServer::Mode::Trickle);
        QVERIFY(fake.start());
        RedisTimeouts timeouts;
        timeouts.connectMs = 2000;
        timeouts.commandMs = 1000;
        auto c = RedisClient::connect({"127.0.0.1", fake.port(), 0}, timeouts);
        QVERIFY(c.ok());
        QElapsedTimer t;
        t.start();
        auto r = (*c)->get("fxscope:meta:x");
        QVERIFY2(t.elapsed() < kReturnsWithinMs, qPrintable(QString::number(t.elapsed())));
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::Io);
        QVERIFY2(r.error().message.find("within 1000 ms") != std::string::npos,
                 r.error().message.c_str());
        QVERIFY((*c)->broken());
        // The tier on such a server: offline after one command, one warning, then at once.
        RemoteOptions o;
        o.url = fake.urlText();
        o.teamKey = "k";
        o.timeouts = timeouts;
        auto tier = RemoteTier::open(o);
        QVERIFY(tier.ok());
        t.restart();
        QCOMPARE((*tier)->fetch(sampleEntry(1).key).state, FetchState::Unavailable);
        QCOMPARE((*tier)->fetch(sampleEntry(2).key).state, FetchState::Unavailable);
        QVERIFY(t.elapsed() < kReturnsWithinMs);
        QCOMPARE((*tier)->warnings().size(), std::size_t(1));
    }

    // A server that floods a reply is cut off at the client's limits, long before the bytes
    // or values it declares: a 1 GB bulk string at 1 MiB received, an array of 2^31 - 1
    // elements at once (its declared length is over the value budget before any element).
    void floodedRepliesStopAtTheLimits_data()
    {
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("why");
        QTest::newRow("bulk") << int(test::FakeRedisServer::Mode::Flood)
                              << "a reply of more than 1.0 MiB (limit)";
        QTest::newRow("array") << int(test::FakeRedisServer::Mode::HugeArray)
                               << "a reply of more than 1000 values (limit)";
    }
    void floodedRepliesStopAtTheLimits()
    {
        QFETCH(int, mode);
        QFETCH(QString, why);
        test::FakeRedisServer fake(static_cast<test::FakeRedisServer::Mode>(mode));
        QVERIFY(fake.start());
        RedisTimeouts timeouts;
        timeouts.connectMs = 2000;
        timeouts.commandMs = 20000;
        RedisLimits limits;
        limits.maxReplyBytes = std::size_t(1) << 20;
        limits.maxReplyValues = 1000;
        auto c = RedisClient::connect({"127.0.0.1", fake.port(), 0}, timeouts, limits);
        QVERIFY(c.ok());
        auto r = (*c)->get("fxscope:meta:x");
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::Io);
        QVERIFY2(r.error().message.find(why.toStdString()) != std::string::npos,
                 r.error().message.c_str());
        QVERIFY((*c)->broken());
    }

    // A host name is resolved under the connect deadline: a resolver that does not answer is
    // given up on; a numeric address needs none.
    void hangingResolverIsGivenUpOn()
    {
        auto hanging = [](const char*, const char*, const ::addrinfo*, ::addrinfo** out) {
            *out = nullptr;
            std::this_thread::sleep_for(std::chrono::seconds(3));
            return EAI_AGAIN;
        };
        QElapsedTimer t;
        t.start();
        auto r = remote::detail::resolveWithin("redis.team.example", 200, hanging);
        QVERIFY(t.elapsed() < 2500);
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::Io);
        QVERIFY2(r.error().message.find("cannot resolve the host 'redis.team.example' within "
                                        "200 ms (timeout)") != std::string::npos,
                 r.error().message.c_str());
        QCOMPARE(*remote::detail::resolveWithin("127.0.0.1", 1, hanging), std::string("127.0.0.1"));
        auto failing = [](const char*, const char*, const ::addrinfo*, ::addrinfo** out) {
            *out = nullptr;
            return EAI_NONAME;
        };
        r = remote::detail::resolveWithin("nowhere.example", 2000, failing);
        QVERIFY(!r);
        QVERIFY2(r.error().message.find("cannot resolve the host 'nowhere.example': ") !=
                     std::string::npos,
                 r.error().message.c_str());
    }

    void endlessScanIsCut()
    {
        test::FakeRedisServer fake(test::FakeRedisServer::Mode::EndlessScan);
        QVERIFY(fake.start());
        RedisTimeouts timeouts;
        timeouts.connectMs = 2000;
        auto c = RedisClient::connect({"127.0.0.1", fake.port(), 0}, timeouts);
        QVERIFY(c.ok());
        QElapsedTimer t;
        t.start();
        auto keys = (*c)->keys("fxscope:meta:*");
        QVERIFY2(t.elapsed() < kReturnsWithinMs, qPrintable(QString::number(t.elapsed())));
        QVERIFY(!keys);
        QCOMPARE(keys.error().code, ErrorCode::Runtime);
        QVERIFY2(keys.error().message.find("SCAN did not finish") != std::string::npos,
                 keys.error().message.c_str());
        QVERIFY(fake.scans() > 1);
    }
};

QTEST_GUILESS_MAIN(TestRemoteHostile)
#include "tst_remote_hostile.moc"

FXSCOPE_TEST_END
