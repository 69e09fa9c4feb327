// fxscope-cli's cache when its file or disk fails, end to end: a damaged database (not a
// database, scrambled schema, truncated) is reported by `cache verify` as damage (exit 3) with
// the fix, `compile` bypasses it with a reason, `cache repair` moves it aside and starts fresh;
// a 0-byte database is said to be empty; on a full disk (ulimit -f) `compile` serves its hits
// and says "disk full"; a cache that cannot be created (a full disk before it exists, a path
// under a file) costs compile its cache, not its result; eight compiles of one region at once
// build it once.
#include "tests/cli/cli_runner.h"
#include "tests/test_file.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <map>
#include <memory>
#include <vector>

FXSCOPE_TEST_BEGIN

using nlohmann::json;

namespace {

using fxs::test::runCli;
using Cli = fxs::test::CliRun;

// One region of two nodes, exp(x * k): another k, another key.
QByteArray graphText(int k)
{
    const QByteArray m = "\"f32[8, 256][256, 1]cpu\"";
    return "class GraphModule(torch.nn.Module):\n    def forward(self, x: " + m + "):\n" +
           "        mul: " + m + " = torch.ops.aten.mul.Tensor(x, " + QByteArray::number(k) +
           ")\n        exp: " + m + " = torch.ops.aten.exp.default(mul)\n" +
           "        return (exp,)\n";
}

json parsed(const QByteArray& out) { return json::parse(out.toStdString(), nullptr, false); }

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeAll(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(bytes), bytes.size());
    f.close();
    QCOMPARE(::chmod(path.toLocal8Bit().constData(), 0600), 0);
}

Cli finished(QProcess& p)
{
    Cli c;
    c.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    c.out = p.readAllStandardOutput();
    c.err = p.readAllStandardError();
    return c;
}

// The CLI as a process on a full disk: no file may grow beyond 8 KiB (SIGXFSZ ignored, as
// ENOSPC sends none), so the cache's WAL index (32 KiB) and any build output fail to be written.
// Not 0: the compiler's probe of the CPU (part of every key) writes a small temporary file, and
// a key that changes with the disk would turn every hit into a miss.
Cli runOnFullDisk(const QStringList& args)
{
    QProcess bash;
    bash.start("bash", QStringList{"-c", "ulimit -f 8; trap '' XFSZ; exec \"$@\"",
                                   "fxscope-cli", FXSCOPE_CLI_PATH} +
                           args);
    bash.waitForFinished(300000);
    return finished(bash);
}

} // namespace

class TestCliCacheFaults : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_graph;     // graphText(2)
    QByteArray m_healthy; // a database holding graphText(2)'s entry

    QString graph(int k)
    {
        const QString path = m_dir.path() + QString("/g%1.txt").arg(k);
        if (!QFile::exists(path)) {
            writeAll(path, graphText(k));
        }
        return path;
    }
    // <tmp>/<name>/cache.db, its directory created 0700.
    QString db(const QString& name) const
    {
        const QString dir = m_dir.path() + "/" + name;
        QDir().mkpath(dir);
        ::chmod(dir.toLocal8Bit().constData(), 0700);
        return dir + "/cache.db";
    }
    static QStringList compileArgs(const QString& graph, const QString& db)
    {
        return {"compile", graph, "--auto", "--cache", db, "--json", "--repeat", "1"};
    }
    // The one region's outcome of a compile that exited 0, else an empty object.
    static json region(const Cli& c)
    {
        const json out = parsed(c.out);
        if (c.exitCode != 0 || out.is_discarded() || out["regions"].size() != 1) {
            qWarning("exit %d: %s", c.exitCode, c.err.constData());
            return json::object();
        }
        return out["regions"][0];
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_graph = graph(2);
        const QString healthy = db("healthy");
        const json r = region(runCli(compileArgs(m_graph, healthy)));
        QCOMPARE(r.value("state", ""), std::string("miss"));
        m_healthy = readAll(healthy);
        QVERIFY(m_healthy.size() > 8192);
    }

    void damagedDatabaseIsReported_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::newRow("not a database") << QByteArray("not SQLite at all\n").repeated(500);
        QByteArray scrambled = m_healthy;
        for (int i = 100; i < 4096; ++i) {
            scrambled[i] = char((i * 131) & 0xff); // page 1's schema b-tree
        }
        QTest::newRow("scrambled schema") << scrambled;
        QTest::newRow("truncated") << m_healthy.left(m_healthy.size() / 2);
    }

    void damagedDatabaseIsReported()
    {
        QFETCH(QByteArray, bytes);
        const QString path = db(QString("damaged-%1").arg(QTest::currentDataTag()).replace(' ', '_'));
        writeAll(path, bytes);
        const Cli verify = runCli({"cache", "--cache", path, "verify"});
        QCOMPARE(verify.exitCode, 3); // damage, as for corrupt entries
        const json v = parsed(verify.out);
        QVERIFY(!v.is_discarded());
        QCOMPARE(v["ok"].get<bool>(), false);
        QVERIFY(!v.value("damage", "").empty());
        QVERIFY2(verify.err.contains("repair"), verify.err.constData());
        QVERIFY2(!verify.err.contains("cannot prepare"), verify.err.constData());
        const Cli ls = runCli({"cache", "--cache", path, "ls"});
        QCOMPARE(ls.exitCode, 3);
        QVERIFY2(ls.err.contains("repair"), ls.err.constData());
        // compile goes on without the cache and says why, naming the file and the fix: once on
        // stderr, and in the region's headline.
        const Cli compiled = runCli(compileArgs(m_graph, path));
        QCOMPARE(compiled.err.count("warning:"), 1);
        QVERIFY2(compiled.err.contains(path.toUtf8()) && compiled.err.contains("repair"),
                 compiled.err.constData());
        const json r = region(compiled);
        QCOMPARE(r.value("reason", ""), std::string("bypass_cache_error"));
        const QString headline = QString::fromStdString(r.value("headline", ""));
        QVERIFY2(headline.contains(path) && headline.contains("repair"), qPrintable(headline));
        QCOMPARE(readAll(path), bytes); // untouched until repaired
        // repair: moved aside, every byte kept; a fresh database in its place.
        const Cli repair = runCli({"cache", "--cache", path, "repair"});
        QCOMPARE(repair.exitCode, 0);
        const json rep = parsed(repair.out);
        QVERIFY(rep["damaged"].get<bool>());
        const QString moved = QString::fromStdString(rep["moved_to"].get<std::string>());
        QVERIFY2(moved.startsWith(path + ".corrupt-"), qPrintable(moved));
        QCOMPARE(readAll(moved), bytes);
        QCOMPARE(runCli({"cache", "--cache", path, "verify"}).exitCode, 0);
        QCOMPARE(region(runCli(compileArgs(m_graph, path))).value("state", ""),
                 std::string("miss"));
    }

    void repairLeavesAHealthyDatabaseAlone()
    {
        const QString path = db("healthy-repair");
        writeAll(path, m_healthy);
        const Cli repair = runCli({"cache", "--cache", path, "repair"});
        QCOMPARE(repair.exitCode, 0);
        QCOMPARE(parsed(repair.out)["damaged"].get<bool>(), false);
        QCOMPARE(runCli({"cache", "--cache", path, "ls"}).exitCode, 0);
        QCOMPARE(parsed(runCli({"cache", "--cache", path, "ls"}).out)["entries"].size(),
                 std::size_t(1));
    }

    void emptyDatabaseIsNotSilentlyOk()
    {
        const QString path = db("empty");
        writeAll(path, QByteArray());
        const Cli verify = runCli({"cache", "--cache", path, "verify"});
        QCOMPARE(verify.exitCode, 0);
        const json v = parsed(verify.out);
        QVERIFY2(v.value("notice", "").find("empty (0-byte)") != std::string::npos,
                 verify.out.constData());
        QVERIFY2(verify.err.contains("empty"), verify.err.constData());
    }

    void fullDiskServesHits()
    {
        const QString path = db("full");
        writeAll(path, m_healthy);
        // A hit writes out the shared object it loads; on the full disk it is there already.
        QCOMPARE(region(runCli(compileArgs(m_graph, path))).value("state", ""),
                 std::string("hit"));
        const Cli hitRun = runOnFullDisk(compileArgs(m_graph, path));
        QCOMPARE(region(hitRun).value("state", ""), std::string("hit"));
        // A miss cannot be built or stored there: it says so and runs on LibTorch.
        const Cli missRun = runOnFullDisk(compileArgs(graph(3), path));
        for (const Cli* c : {&hitRun, &missRun}) {
            QVERIFY2(!c->out.contains("disk I/O error") && !c->err.contains("disk I/O error"),
                     c->err.constData());
        }
        const json miss = region(missRun);
        const QString headline = QString::fromStdString(miss.value("headline", ""));
        QVERIFY2(headline.contains("disk full"), qPrintable(headline));
        QCOMPARE(miss.value("reason", ""), std::string("fallback_disk_full"));
    }

    // The disk fills before the cache exists: compile warns once and compiles without it.
    void fullDiskBeforeTheCacheExists()
    {
        const QString path = m_dir.path() + "/never-made/cache.db";
        const Cli c = runOnFullDisk(compileArgs(graph(4), path));
        QCOMPARE(c.exitCode, 0);
        QVERIFY2(c.err.contains("compiling without the cache") && c.err.contains("disk full"),
                 c.err.constData());
        QCOMPARE(c.err.count("warning:"), 1);
        QCOMPARE(parsed(c.out)["regions"].size(), std::size_t(1));
    }

    // A cache path that cannot be created at all (below a regular file): the same.
    void uncreatableCacheIsSkipped()
    {
        const QString file = m_dir.path() + "/plain-file";
        writeAll(file, "x");
        const Cli c = runCli(compileArgs(graph(2), file + "/sub/cache.db"));
        QCOMPARE(c.exitCode, 0);
        QVERIFY2(c.err.contains("compiling without the cache") && c.err.contains(file.toUtf8()),
                 c.err.constData());
        QCOMPARE(region(c).value("reason", ""), std::string("bypass_no_cache"));
    }

    void eightCompilesBuildOnce()
    {
        const QString path = db("eight");
        const QString g = graph(5);
        // A compiler that notes each build and takes 3 s over it, so that the others reach
        // their lookup while the first builds (a real build of this region takes 50 ms).
        const QString builds = m_dir.path() + "/eight-builds.txt";
        const QString cxx = m_dir.path() + "/slow-cxx.sh";
        writeAll(cxx, "#!/bin/sh\ncase \" $* \" in *\" -o \"*) echo build >> '" +
                          builds.toLocal8Bit() + "'; sleep 3;; esac\nexec g++ \"$@\"\n");
        QCOMPARE(::chmod(cxx.toLocal8Bit().constData(), 0700), 0);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("FXSCOPE_CXX", cxx);
        std::vector<std::unique_ptr<QProcess>> procs;
        for (int i = 0; i < 8; ++i) {
            procs.push_back(std::make_unique<QProcess>());
            procs.back()->setProcessEnvironment(env);
            procs.back()->start(FXSCOPE_CLI_PATH, compileArgs(g, path));
        }
        std::map<std::string, int> reasons;
        int built = 0;
        for (auto& p : procs) {
            QVERIFY(p->waitForFinished(300000));
            const json r = region(finished(*p));
            built += r.value("state", "") == "miss" ? 1 : 0;
            ++reasons[r.value("reason", "")];
        }
        QCOMPARE(readAll(builds).count("build"), 1);
        QCOMPARE(built, 1);
        QCOMPARE(reasons["miss_cold"], 1);
        QCOMPARE(reasons["hit"] + reasons["hit_after_wait"], 7);
        QCOMPARE(parsed(runCli({"cache", "--cache", path, "ls"}).out)["entries"].size(),
                 std::size_t(1));
    }
};

QTEST_GUILESS_MAIN(TestCliCacheFaults)
#include "tst_cli_cache_faults.moc"

FXSCOPE_TEST_END
