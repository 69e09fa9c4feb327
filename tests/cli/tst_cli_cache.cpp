// fxscope-cli cache end to end: entries made by `compile` (f32 and f16 versions of one graph),
// then ls, show (prefix), diff, verify, gc; errors for unknown keys; gc and compile refuse a
// folder that is not the cache's, an artifacts/ link and another program's database; a miss
// explained against the nearest entry.
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <sqlite3.h>

#include <sys/stat.h>
#include <sys/time.h>

#include <ctime>
#include <memory>
#include <set>
#include <vector>

FXSCOPE_TEST_BEGIN

using nlohmann::json;

namespace {

// One 3-node region: exp(x * 2) + y, as print_readable prints it; inputs [rows, 64].
QByteArray graphText(const char* dt, const char* rows = "16")
{
    const QByteArray m = QByteArray("\"") + dt + "[" + rows + ", 64][64, 1]cpu\"";
    return "class GraphModule(torch.nn.Module):\n    def forward(self, x: " + m + ", y: " + m +
           "):\n        mul: " + m + " = torch.ops.aten.mul.Tensor(x, 2)\n        exp: " + m +
           " = torch.ops.aten.exp.default(mul)\n        add: " + m +
           " = torch.ops.aten.add.Tensor(exp, y)\n        return (add,)\n";
}

// Bytes of the regular files below dir: what the cache occupies on disk between runs.
void writeFile(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

// Two hours old: past every sweep's grace period.
void age(const QString& path)
{
    const timeval old[2] = {{std::time(nullptr) - 7200, 0}, {std::time(nullptr) - 7200, 0}};
    QCOMPARE(::lutimes(path.toLocal8Bit().constData(), old), 0);
}

std::int64_t dirBytes(const QString& dir)
{
    std::int64_t n = 0;
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        n += QFileInfo(it.next()).size();
    }
    return n;
}

struct Cli {
    int exitCode = -1;
    json out;
    QByteArray err;
};

Cli runCli(const QStringList& args,
           const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(FXSCOPE_CLI_PATH, args);
    p.waitForFinished(300000);
    Cli c{p.exitCode(), json(), p.readAllStandardError()};
    const QByteArray out = p.readAllStandardOutput();
    c.out = json::parse(out.toStdString(), nullptr, false);
    return c;
}

} // namespace

class TestCliCache : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string m_key32, m_key16;
    QString db() const { return m_dir.path() + "/c/cache.db"; }
    std::string compileGraph(const char* dt)
    {
        const QString path = m_dir.path() + "/g_" + dt + ".txt";
        QFile f(path);
        f.open(QIODevice::WriteOnly);
        f.write(graphText(dt));
        f.close();
        const Cli c = runCli({"compile", path, "--auto", "--cache", db(), "--json", "--repeat", "1"});
        if (c.exitCode != 0 || c.out.is_discarded()) {
            qWarning("%s", c.err.constData());
            return {};
        }
        return c.out["regions"][0]["key"].get<std::string>();
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_key32 = compileGraph("f32");
        m_key16 = compileGraph("bf16"); // LibTorch 1.13 has no CPU exp for f16
        QCOMPARE(m_key32.size(), std::size_t(64));
        QCOMPARE(m_key16.size(), std::size_t(64));
        QVERIFY(m_key32 != m_key16);
    }

    void listsEntries()
    {
        const Cli c = runCli({"cache", "--cache", db(), "ls"});
        QCOMPARE(c.exitCode, 0);
        QCOMPARE(c.out["entries"].size(), std::size_t(2));
        std::int64_t bytes = 0;
        for (const auto& e : c.out["entries"]) {
            QCOMPARE(e["status"].get<std::string>(), std::string("verified"));
            QVERIFY(e["so_bytes"].get<std::int64_t>() > 1000);
            bytes += e["blob_bytes"].get<std::int64_t>();
        }
        QCOMPARE(c.out["total_bytes"].get<std::int64_t>(), bytes);
    }

    void showsComponentsByPrefix()
    {
        const Cli c = runCli({"cache", "--cache", db(), "show",
                              QString::fromStdString(m_key32.substr(0, 10))});
        QCOMPARE(c.exitCode, 0);
        QCOMPARE(c.out["key"].get<std::string>(), m_key32);
        std::set<std::string> labels;
        for (const auto& comp : c.out["components"]) {
            labels.insert(comp["label"].get<std::string>());
        }
        for (const char* l : {"region", "input[0]", "input[1]", "options", "codegen_version",
                              "compiler", "libtorch_version", "cpu_isa"}) {
            QVERIFY2(labels.count(l), l);
        }
        const Cli missing = runCli({"cache", "--cache", db(), "show", "ffffffff"});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY(missing.err.contains("no cache entry"));
    }

    void diffNamesTheDtype()
    {
        const Cli c = runCli({"cache", "--cache", db(), "diff", QString::fromStdString(m_key32),
                              QString::fromStdString(m_key16)});
        QCOMPARE(c.exitCode, 0);
        QVERIFY(c.out["same_region"].get<bool>());
        QCOMPARE(c.out["changes"].size(), std::size_t(2)); // input[0], input[1]
        const json& ch = c.out["changes"][0];
        QCOMPARE(ch["label"].get<std::string>(), std::string("input[0]"));
        QCOMPARE(ch["field"].get<std::string>(), std::string("dtype"));
        QCOMPARE(ch["description"].get<std::string>(), std::string("input 0 dtype float32 → bfloat16"));
    }

    void verifiesThenCollects()
    {
        const Cli v = runCli({"cache", "--cache", db(), "verify"});
        QCOMPARE(v.exitCode, 0);
        QCOMPARE(v.out["checked"].get<int>(), 2);
        QVERIFY(v.out["ok"].get<bool>());
        // A second compile hits and materializes the f32 shared object: its file is the
        // store's, counted in disk_bytes and deleted by gc.
        QCOMPARE(compileGraph("f32"), m_key32);
        const QString so = m_dir.path() + "/c/artifacts/" + QString::fromStdString(m_key32) + ".so";
        QVERIFY(QFile::exists(so));
        const Cli ls = runCli({"cache", "--cache", db(), "ls"});
        const auto disk = ls.out["disk_bytes"].get<std::int64_t>();
        QVERIFY(disk > ls.out["total_bytes"].get<std::int64_t>());
        const std::int64_t onDisk = dirBytes(m_dir.path() + "/c");
        QVERIFY(onDisk >= disk && onDisk <= disk + 4096); // at most one free page
        // Trim to N: the least recently hit entry (bf16) goes, the directory fits in N.
        const std::int64_t n = disk - 4096;
        const Cli trim =
            runCli({"cache", "--cache", db(), "gc", "--max-bytes", QString::number(n)});
        QCOMPARE(trim.exitCode, 0);
        QCOMPARE(trim.out["removed"].get<int>(), 1);
        QVERIFY(trim.out["bytes_after"].get<std::int64_t>() <= n);
        QVERIFY(dirBytes(m_dir.path() + "/c") <= n);
        QVERIFY(QFile::exists(so));
        const Cli gc = runCli({"cache", "--cache", db(), "gc", "--max-bytes", "0"});
        QCOMPARE(gc.exitCode, 0);
        QCOMPARE(gc.out["removed"].get<int>(), 1);
        QCOMPARE(gc.out["files_removed"].get<int>(), 1);
        QVERIFY(!QFile::exists(so));
        QCOMPARE(runCli({"cache", "--cache", db(), "ls"}).out["entries"].size(), std::size_t(0));
        // What is left is the empty database itself.
        QVERIFY(dirBytes(m_dir.path() + "/c") <= gc.out["bytes_after"].get<std::int64_t>() + 4096);
    }

    // FXSCOPE_CACHE_DIR set to a folder of the user's: gc refuses it, every file stays.
    void gcRefusesAFolderThatIsNotTheCache()
    {
        const QString folder = m_dir.path() + "/my-project";
        QVERIFY(QDir().mkpath(folder + "/artifacts") && QDir().mkpath(folder + "/build-77777-release"));
        QCOMPARE(::chmod(folder.toLocal8Bit().constData(), 0700), 0);
        writeFile(folder + "/artifacts/report.pdf", "%PDF-1.4");
        writeFile(folder + "/build-77777-release/app", "binary");
        for (const char* p : {"/artifacts/report.pdf", "/build-77777-release"}) {
            age(folder + p);
        }
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("FXSCOPE_CACHE_DIR", folder);
        const Cli gc = runCli({"cache", "gc", "--max-bytes", "0"}, env);
        QCOMPARE(gc.exitCode, 1);
        QVERIFY2(gc.err.contains("fxscope-cache.tag") && gc.err.contains(folder.toUtf8()),
                 gc.err.constData());
        QVERIFY(QFile::exists(folder + "/artifacts/report.pdf"));
        QVERIFY(QFile::exists(folder + "/build-77777-release/app"));
        QVERIFY(!QFile::exists(folder + "/cache.db"));
    }

    // artifacts/ swapped for a link to a folder of the user's: gc refuses, nothing goes.
    void gcNeverFollowsAnArtifactsLink()
    {
        const QString cacheDir = m_dir.path() + "/linked";
        const QString cdb = cacheDir + "/cache.db";
        QCOMPARE(runCli({"cache", "--cache", cdb, "ls"}).exitCode, 0); // creates the cache
        const QString victim = m_dir.path() + "/photos";
        QVERIFY(QDir().mkpath(victim));
        const QStringList names = {"1.jpg", "2.jpg",
                                   QString::fromStdString(m_key32) + ".so"}; // named like ours
        for (const auto& n : names) {
            writeFile(victim + "/" + n, "mine");
            age(victim + "/" + n);
        }
        QDir(cacheDir + "/artifacts").removeRecursively();
        QVERIFY(QFile::link(victim, cacheDir + "/artifacts"));
        const Cli gc = runCli({"cache", "--cache", cdb, "gc", "--max-bytes", "0"});
        QCOMPARE(gc.exitCode, 1);
        QVERIFY2(gc.err.contains("symbolic link"), gc.err.constData());
        for (const auto& n : names) {
            QVERIFY2(QFile::exists(victim + "/" + n), qPrintable(n));
        }
    }

    // cache.db a link to another program's database: refused, no tables created in it.
    void compileRefusesAForeignDatabase()
    {
        const QString other = m_dir.path() + "/other.sqlite";
        const QString dir = m_dir.path() + "/foreign";
        QVERIFY(QDir().mkpath(dir));
        QCOMPARE(::chmod(dir.toLocal8Bit().constData(), 0700), 0);
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(other.toLocal8Bit().constData(), &db), SQLITE_OK);
        QCOMPARE(sqlite3_exec(db, "CREATE TABLE notes(body TEXT)", nullptr, nullptr, nullptr),
                 SQLITE_OK);
        sqlite3_close(db);
        QFile before(other);
        QVERIFY(before.open(QIODevice::ReadOnly));
        const QByteArray header = before.readAll();
        QVERIFY(QFile::link(other, dir + "/cache.db"));
        const QString g = m_dir.path() + "/g_f32.txt";
        const Cli c = runCli({"compile", g, "--auto", "--cache", dir + "/cache.db", "--json"});
        QCOMPARE(c.exitCode, 1);
        QVERIFY2(c.err.contains("symbolic link"), c.err.constData());
        QFile f(other);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), header); // untouched
    }

    void concurrentCompilesMakeOneEntryPerKey()
    {
        // Four fxscope-cli compile processes on one graph and one fresh database, started at
        // once: all succeed, each region key has exactly one row, and verify finds no damage.
        const QString path = m_dir.path() + "/g_conc.txt";
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(graphText("f32"));
        f.close();
        const QString cdb = m_dir.path() + "/conc/cache.db";
        std::vector<std::unique_ptr<QProcess>> procs;
        for (int i = 0; i < 4; ++i) {
            procs.push_back(std::make_unique<QProcess>());
            procs.back()->start(FXSCOPE_CLI_PATH, {"compile", path, "--auto", "--cache", cdb,
                                                   "--json", "--repeat", "1"});
        }
        std::set<std::string> keys;
        for (auto& p : procs) {
            QVERIFY(p->waitForFinished(300000));
            QVERIFY2(p->exitStatus() == QProcess::NormalExit && p->exitCode() == 0,
                     p->readAllStandardError().constData());
            const json out = json::parse(p->readAllStandardOutput().toStdString(), nullptr, false);
            QVERIFY(!out.is_discarded());
            QCOMPARE(out["regions"].size(), std::size_t(1));
            const std::string state = out["regions"][0]["state"].get<std::string>();
            QVERIFY2(state == "miss" || state == "hit", state.c_str());
            keys.insert(out["regions"][0]["key"].get<std::string>());
        }
        QCOMPARE(keys.size(), std::size_t(1)); // the same region and inputs: one key
        const Cli ls = runCli({"cache", "--cache", cdb, "ls"});
        QCOMPARE(ls.exitCode, 0);
        QCOMPARE(ls.out["entries"].size(), std::size_t(1));
        QCOMPARE(ls.out["entries"][0]["key"].get<std::string>(), *keys.begin());
        QCOMPARE(ls.out["entries"][0]["status"].get<std::string>(), std::string("verified"));
        const Cli v = runCli({"cache", "--cache", cdb, "verify"});
        QCOMPARE(v.exitCode, 0);
        QCOMPARE(v.out["ok"].get<bool>(), true);
        QCOMPARE(v.out["checked"].get<int>(), 1);
    }

    void missIsExplainedAgainstTheNearestEntry()
    {
        // Issue 26: f32 and bf16 versions of one graph cached, bf16 the more recent; then the
        // f32 graph at another size. Both entries differ from it in the two input components,
        // the f32 one only in their sizes: the miss is explained against it, not against the
        // newer bf16 entry ("input 0 dtype bfloat16 → float32 (+1 more)").
        const QString ndb = m_dir.path() + "/near/cache.db";
        auto compile = [&](const char* dt, const char* rows) {
            const QString path = m_dir.path() + "/near_" + dt + "_" + rows + ".txt";
            QFile f(path);
            f.open(QIODevice::WriteOnly);
            f.write(graphText(dt, rows));
            f.close();
            const Cli c =
                runCli({"compile", path, "--auto", "--cache", ndb, "--json", "--repeat", "1"});
            if (c.exitCode != 0 || c.out.is_discarded()) {
                qWarning("%s", c.err.constData());
                return json();
            }
            return c.out["regions"][0];
        };
        QCOMPARE(compile("f32", "16").value("reason", ""), std::string("miss_cold"));
        QCOMPARE(compile("bf16", "16").value("reason", ""), std::string("miss_input_dtype"));
        const json small = compile("f32", "8");
        QCOMPARE(small.value("state", ""), std::string("miss"));
        QCOMPARE(small.value("reason", ""), std::string("miss_input_shape"));
        QCOMPARE(small.value("headline", ""),
                 std::string("miss: input 0 sizes [16,64] \u2192 [8,64] (+1 more)"));
    }
};

QTEST_GUILESS_MAIN(TestCliCache)
#include "tests/test_file.h"
#include "tst_cli_cache.moc"

FXSCOPE_TEST_END
