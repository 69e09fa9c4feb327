// fxscope-cli with --remote against a real redis-server per test: compile on one machine (cache
// database), remote hits on another, profile through the tier, cache ls/show/verify/gc on the
// remote tier, and the errors and warnings: a bad URL, a loose key file, a server that is down;
// and hostile ones: an unsigned entry with wrapping blob lengths (keyless verify reports it), a
// key file that is a FIFO, a server that trickles its replies or never ends a SCAN (compile and
// `cache --remote ls` return, within a generous bound: the old client hung for good).
#include "tests/cli/cli_runner.h"
#include "core/remote/redis_client.h"
#include "core/util/digest.h"
#include "tests/test_file.h"
#include "tests/unit/remote/fake_redis_server.h"
#include "tests/unit/remote/redis_server.h"

#include <QElapsedTimer>
#include <QFile>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <sys/stat.h>

FXSCOPE_TEST_BEGIN

using fxs::test::CliRun;
// How long a command against a hostile server may take before the test calls it hung: the
// deadlines make it a few seconds; the old client never returned.
constexpr int kBoundMs = 60000;
using fxs::test::runCli;
using nlohmann::json;

namespace {

// Two elementwise regions for --auto (sin..mul on x, y; exp on z), apart by an mm.
QByteArray graphText()
{
    const QByteArray m = "\"f32[32, 32][32, 1]cpu\"";
    QByteArray t = "class GraphModule(torch.nn.Module):\n    def forward(self, x: " + m + ", y: " +
                   m + ", z: " + m + "):\n";
    auto line = [&](const char* name, const char* call) {
        t += QByteArray("        ") + name + ": " + m + " = torch.ops.aten." + call + "\n";
    };
    line("sin", "sin.default(x)");
    line("mul", "mul.Tensor(sin, y)");
    line("relu", "relu.default(mul)");
    line("mm", "mm.default(relu, z)");
    line("exp", "exp.default(mm)");
    line("add", "add.Tensor(exp, 1)");
    t += "        return (add,)\n";
    return t;
}

} // namespace

class TestCliRemote : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<fxs::test::RedisServer> m_server;
    QString m_graph;
    int m_test = 0;

    QString url() const { return QString::fromStdString(m_server->urlText()); }
    QProcessEnvironment env(const char* key = "team key") const
    {
        QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
        e.remove("FXSCOPE_CACHE_KEY_FILE");
        e.remove("FXSCOPE_CACHE_KEY");
        if (key) {
            e.insert("FXSCOPE_CACHE_KEY", key);
        }
        return e;
    }
    // A machine's local store; each test has its own machines (m_test).
    QString db(const char* machine) const
    {
        return m_dir.filePath(QString::number(m_test) + machine) + "/cache.db";
    }
    CliRun compile(const char* machine, const QString& remote, const QProcessEnvironment& e)
    {
        return runCli({"compile", m_graph, "--auto", "--cache", db(machine), "--remote", remote,
                       "--json", "--repeat", "1"},
                      e);
    }
    CliRun cache(const QStringList& args)
    {
        return runCli(QStringList{"cache", "--remote", url()} + args, env());
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (fxs::test::RedisServer::executable().isEmpty()) {
            QSKIP("redis-server is not installed (Debian package redis-server)");
        }
        m_graph = m_dir.filePath("g.txt");
        QFile f(m_graph);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(graphText());
    }
    void init()
    {
        ++m_test;
        m_server = std::make_unique<fxs::test::RedisServer>();
        QString error;
        QVERIFY2(m_server->start(error), qPrintable(error));
    }
    void cleanup() { m_server.reset(); }

    void compileThenRemoteHitsThenCacheCommands()
    {
        const CliRun a = compile("a", url(), env());
        QVERIFY2(a.exitCode == 0, a.err.constData());
        const json ja = json::parse(a.out.toStdString());
        QCOMPARE(ja["regions"].size(), std::size_t(2));
        for (const auto& r : ja["regions"]) {
            QCOMPARE(r["state"].get<std::string>(), std::string("miss"));
        }
        QCOMPARE(ja["remote"]["url"].get<std::string>(), m_server->urlText());
        QVERIFY(ja["remote"]["online"].get<bool>() && ja["remote"]["has_key"].get<bool>());
        QVERIFY(ja["remote"]["warnings"].empty());
        QVERIFY2(a.err.isEmpty(), a.err.constData());

        const CliRun b = compile("b", url(), env());
        QVERIFY2(b.exitCode == 0, b.err.constData());
        const json jb = json::parse(b.out.toStdString());
        for (const auto& r : jb["regions"]) {
            QCOMPARE(r["reason"].get<std::string>(), std::string("remote_hit"));
            QCOMPARE(r["reason_code"].get<int>(), 42);
            const std::string h = r["headline"].get<std::string>();
            QVERIFY2(h.rfind("hit: remote hit (" + m_server->urlText() + "), entry ", 0) == 0,
                     h.c_str());
        }

        const CliRun ls = cache({"ls"});
        QVERIFY2(ls.exitCode == 0, ls.err.constData());
        const json jl = json::parse(ls.out.toStdString());
        QCOMPARE(jl["remote"].get<std::string>(), m_server->urlText());
        QCOMPARE(jl["entries"].size(), std::size_t(2));
        QVERIFY(jl["disk_bytes"].get<std::int64_t>() > jl["total_bytes"].get<std::int64_t>());
        const std::string key = jl["entries"][0]["key"].get<std::string>();
        QCOMPARE(jl["entries"][0]["status"].get<std::string>(), std::string("verified"));

        const CliRun show = cache({"show", QString::fromStdString(key.substr(0, 8))});
        QVERIFY2(show.exitCode == 0, show.err.constData());
        const json js = json::parse(show.out.toStdString());
        QCOMPARE(js["key"].get<std::string>(), key);
        QVERIFY(!js["components"].empty());

        const CliRun verify = cache({"verify"});
        QCOMPARE(verify.exitCode, 0);
        QCOMPARE(json::parse(verify.out.toStdString())["checked"].get<int>(), 2);

        const CliRun gc = cache({"gc", "--max-bytes", "0"});
        QVERIFY2(gc.exitCode == 0, gc.err.constData());
        QCOMPARE(json::parse(gc.out.toStdString())["removed"].get<int>(), 2);
        QCOMPARE(json::parse(cache({"ls"}).out.toStdString())["entries"].size(), std::size_t(0));
        QCOMPARE(cache({"stats"}).exitCode, 1); // local only
    }

    void verifyFindsATamperedValue()
    {
        QCOMPARE(compile("a", url(), env()).exitCode, 0);
        const CliRun other = runCli({"cache", "--remote", url(), "verify"}, env("another key"));
        QCOMPARE(other.exitCode, 3);
        const json j = json::parse(other.out.toStdString());
        QCOMPARE(j["corrupt"].size(), std::size_t(2));
        QVERIFY(!j["ok"].get<bool>());
        // Without a key only checksums are checked: they pass.
        const CliRun noKey = runCli({"cache", "--remote", url(), "verify"}, env(nullptr));
        QCOMPARE(noKey.exitCode, 0);
        QVERIFY(noKey.err.contains("no team key"));
    }

    void errorsAndWarnings()
    {
        const CliRun badUrl = compile("a", "redis://host:99999", env());
        QCOMPARE(badUrl.exitCode, 1);
        QVERIFY2(badUrl.err.contains("a port number 1-65535"), badUrl.err.constData());

        const QString keyFile = m_dir.filePath("team.key");
        QFile f(keyFile);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("k\n");
        f.close();
        QVERIFY(::chmod(keyFile.toLocal8Bit().constData(), 0640) == 0);
        QProcessEnvironment loose = env(nullptr);
        loose.insert("FXSCOPE_CACHE_KEY_FILE", keyFile);
        const CliRun refused = compile("a", url(), loose);
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("chmod 600"), refused.err.constData());

        const QString down =
            "redis://127.0.0.1:" + QString::number(fxs::test::RedisServer::freePort());
        const CliRun local = compile("a", down, env());
        QVERIFY2(local.exitCode == 0, local.err.constData());
        QCOMPARE(local.err.count("warning:"), 1);
        const json j = json::parse(local.out.toStdString());
        QVERIFY(!j["remote"]["online"].get<bool>());
        QCOMPARE(j["regions"][0]["state"].get<std::string>(), std::string("miss")); // built here
        QCOMPARE(runCli({"cache", "--remote", down, "ls"}, env()).exitCode, 1);
    }

    void profileUsesTheTier()
    {
        QCOMPARE(compile("a", url(), env()).exitCode, 0);
        const CliRun p = runCli({"profile", m_graph, "--auto", "--cache", db("p"), "--remote",
                                 url(), "--json", "--repeat", "1"},
                                env());
        QVERIFY2(p.exitCode == 0, p.err.constData());
        const json j = json::parse(p.out.toStdString());
        QCOMPARE(j["remote"]["url"].get<std::string>(), m_server->urlText());
        // The profile's regions were loaded from Redis into machine p's store.
        const CliRun ls = runCli({"cache", "--cache", db("p"), "ls"}, env());
        QCOMPARE(json::parse(ls.out.toStdString())["entries"].size(), std::size_t(2));
        const CliRun stats = runCli({"cache", "--cache", db("p"), "stats"}, env());
        QVERIFY2(stats.out.contains("remote_hit"), stats.out.constData());
    }

    // An unsigned entry whose format-1 blob lengths add up only modulo 2^64 (checksum right):
    // keyless verify reports it (exit 3) instead of aborting.
    void keylessVerifyReportsAWrappingBlob()
    {
        QCOMPARE(compile("a", url(), env()).exitCode, 0);
        auto c = fxs::remote::RedisClient::connect(m_server->url());
        QVERIFY(c.ok());
        auto keys = (*c)->keys("fxscope:meta:*");
        QVERIFY(keys && !keys->empty());
        const std::string metaKey = keys->front();
        const std::string key = metaKey.substr(std::string("fxscope:meta:").size());
        const std::string blob = "fxscope-artifact-1\n10\n18446744073709551610\nabcd";
        std::string meta = *(*c)->get(metaKey).value();
        const std::string oldSha =
            fxs::toHex(fxs::sha256(*(*c)->get("fxscope:blob:" + key).value()));
        meta.replace(meta.find(oldSha), oldSha.size(), fxs::toHex(fxs::sha256(blob)));
        meta.replace(0, meta.find('\n'), "unsigned");
        QVERIFY((*c)->setAll({{metaKey, meta}, {"fxscope:blob:" + key, blob}}));
        const CliRun v = runCli({"cache", "--remote", url(), "verify"}, env(nullptr));
        QCOMPARE(v.exitCode, 3);
        const json j = json::parse(v.out.toStdString(), nullptr, false);
        QVERIFY2(!j.is_discarded(), v.out.constData());
        QCOMPARE(j["corrupt"].size(), std::size_t(1));
        QCOMPARE(j["corrupt"][0]["key"].get<std::string>(), key);
    }

    // Whoever can write to Redis sets the build lock of every region: compile does not wait on
    // an unsigned lock (the old client waited the compiler's timeout + 30 s per region).
    void forgedLocksAreNotWaitedOn()
    {
        const CliRun local = runCli({"compile", m_graph, "--auto", "--cache", db("keys"), "--json",
                                     "--repeat", "1"},
                                    env());
        QCOMPARE(local.exitCode, 0);
        auto c = fxs::remote::RedisClient::connect(m_server->url());
        QVERIFY(c.ok());
        for (const auto& r : json::parse(local.out.toStdString())["regions"]) {
            const std::string lock = "fxscope:lock:" + r["key"].get<std::string>();
            QVERIFY((*c)->setIfAbsent(lock, "12345", 600000).value());
        }
        QElapsedTimer t;
        t.start();
        const CliRun b = runCli({"compile", m_graph, "--auto", "--cache", db("b"), "--remote",
                                 url(), "--json", "--repeat", "1"},
                                env(), kBoundMs);
        QVERIFY2(b.exitCode == 0, b.err.constData()); // -1: still waiting when the bound passed
        for (const auto& r : json::parse(b.out.toStdString())["regions"]) {
            QCOMPARE(r["state"].get<std::string>(), std::string("miss")); // built here
        }
        QVERIFY(t.elapsed() < kBoundMs);
    }

    void keyFileThatIsAFifoIsNamed()
    {
        const QString fifo = m_dir.filePath("team.fifo");
        QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
        QProcessEnvironment e = env(nullptr);
        e.insert("FXSCOPE_CACHE_KEY_FILE", fifo);
        const CliRun r = compile("a", url(), e);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("named pipe (FIFO)"), r.err.constData());
    }

    // One byte every 200 ms: each read is within the timeout, the reply never ends.
    void tricklingServerDoesNotHang()
    {
        fxs::test::FakeRedisServer fake(fxs::test::FakeRedisServer::Mode::Trickle);
        QVERIFY(fake.start());
        const QString fakeUrl = QString::fromStdString(fake.urlText());
        QElapsedTimer t;
        t.start();
        const CliRun local = runCli({"compile", m_graph, "--auto", "--cache", db("a"), "--remote",
                                     fakeUrl, "--remote-connect-ms", "2000", "--json", "--repeat",
                                     "1"},
                                    env(), kBoundMs);
        QVERIFY2(local.exitCode == 0, local.err.constData()); // -1: it hung
        const json j = json::parse(local.out.toStdString());
        QVERIFY(!j["remote"]["online"].get<bool>());
        QVERIFY2(local.err.contains("within 1000 ms"), local.err.constData());
        const CliRun ls = runCli({"cache", "--remote", fakeUrl, "--remote-connect-ms", "2000", "ls"},
                                 env(), kBoundMs);
        QCOMPARE(ls.exitCode, 1);
        QVERIFY2(ls.err.contains("within 1000 ms"), ls.err.constData());
        QVERIFY(t.elapsed() < 2 * kBoundMs);
    }

    // SCAN answers cursor 1 and the same key, forever.
    void endlessScanDoesNotHang()
    {
        fxs::test::FakeRedisServer fake(fxs::test::FakeRedisServer::Mode::EndlessScan);
        QVERIFY(fake.start());
        const CliRun ls = runCli({"cache", "--remote", QString::fromStdString(fake.urlText()),
                                  "--remote-connect-ms", "2000", "ls"},
                                 env(), kBoundMs);
        QCOMPARE(ls.exitCode, 1); // -1: it hung
        QVERIFY2(ls.err.contains("SCAN did not finish"), ls.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliRemote)
#include "tst_cli_remote.moc"

FXSCOPE_TEST_END
