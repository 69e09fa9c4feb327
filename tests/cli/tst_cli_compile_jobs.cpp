// fxscope-cli compile --jobs N (issue 27, point 4): the regions' builds run in parallel and
// nothing else changes. tests/data/compile/four_regions_fw.txt has four regions (--auto): r0
// (sin, mul, add), r1 and r2 (relu, tanh, mul: isomorphic, one key) and r3 (exp, neg, sigmoid).
// --jobs 2 reports per region what --jobs 1 does and leaves the same store; a compiler wrapper
// that logs when each build starts and ends shows builds overlapping with --jobs 2 only, and
// the isomorphic regions built once; run --compiled takes --jobs too.
#include "tests/cli/cli_runner.h"
#include "tests/test_file.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <map>
#include <csignal>
#include <set>
#include <sys/stat.h>

FXSCOPE_TEST_BEGIN

using nlohmann::json;

namespace {

using fxs::test::runCli;

const QString kGraph = QStringLiteral(FXSCOPE_TEST_DATA "/compile/four_regions_fw.txt");

struct Interval {
    long long start = -1;
    long long end = -1;
};

// The wrapper's log: "start PID NS" and "end PID NS" per build, by PID.
std::map<QByteArray, Interval> builds(const QString& log)
{
    QFile f(log);
    std::map<QByteArray, Interval> out;
    if (!f.open(QIODevice::ReadOnly)) {
        return out;
    }
    for (const QByteArray& line : f.readAll().split('\n')) {
        const QList<QByteArray> w = line.split(' ');
        if (w.size() != 3) {
            continue;
        }
        (w[0] == "start" ? out[w[1]].start : out[w[1]].end) = w[2].toLongLong();
    }
    return out;
}

// Pairs of builds that ran at the same time.
int overlaps(const std::map<QByteArray, Interval>& b)
{
    int n = 0;
    for (auto i = b.begin(); i != b.end(); ++i) {
        for (auto j = std::next(i); j != b.end(); ++j) {
            n += i->second.start < j->second.end && j->second.start < i->second.end ? 1 : 0;
        }
    }
    return n;
}

} // namespace

class TestCliCompileJobs : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    json compile(const QString& db, int jobs, const QProcessEnvironment& env =
                                                  QProcessEnvironment::systemEnvironment())
    {
        const auto r = runCli({"compile", kGraph, "--auto", "--cache", db, "--json", "--repeat",
                               "1", "--jobs", QString::number(jobs)},
                              env);
        if (r.exitCode != 0) {
            qWarning("%s", r.err.constData());
            return json();
        }
        return json::parse(r.out.toStdString());
    }

    // Key and status of every entry of a store.
    std::set<std::pair<std::string, std::string>> entries(const QString& db)
    {
        const auto r = runCli({"cache", "--cache", db, "ls"});
        const json listed = json::parse(r.out.toStdString());
        std::set<std::pair<std::string, std::string>> out;
        for (const auto& e : listed["entries"]) {
            out.insert({e["key"].get<std::string>(), e["status"].get<std::string>()});
        }
        return out;
    }

    // A host compiler that logs each build's start and end (a second apart at least).
    QProcessEnvironment loggingCompiler(const QString& name, const QString& log)
    {
        const QString path = m_dir.path() + "/" + name;
        QFile f(path);
        f.open(QIODevice::WriteOnly);
        const QByteArray l = log.toLocal8Bit();
        f.write("#!/bin/sh\ncase \" $* \" in *\" -o \"*)\n  echo \"start $$ $(date +%s%N)\" >> '" +
                l + "'\n  sleep 1\n  c++ \"$@\"; rc=$?\n  echo \"end $$ $(date +%s%N)\" >> '" + l +
                "'\n  exit $rc;;\nesac\nexec c++ \"$@\"\n");
        f.close();
        ::chmod(path.toLocal8Bit().constData(), 0700);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("FXSCOPE_CXX", path);
        return env;
    }

private Q_SLOTS:
    void sameOutcomesWithAnyJobs()
    {
        const QString db1 = m_dir.path() + "/one/cache.db";
        const QString db2 = m_dir.path() + "/two/cache.db";
        const json one = compile(db1, 1);
        const json two = compile(db2, 2);
        QVERIFY(one.is_object() && two.is_object());
        QCOMPARE(one["regions"].size(), std::size_t(4));
        QCOMPARE(two["regions"].size(), std::size_t(4));
        // By hand: r0 is the first entry (cold); r1 differs from it in its region graph; r2 is
        // r1 again (a hit on the entry r1 stored); r3 differs from r1, the nearest entry.
        const char* states[] = {"miss", "miss", "hit", "miss"};
        const char* reasons[] = {"miss_cold", "miss_region", "hit", "miss_region"};
        for (std::size_t i = 0; i < 4; ++i) {
            const json& a = one["regions"][i];
            const json& b = two["regions"][i];
            QCOMPARE(a["id"].get<std::string>(), "r" + std::to_string(i));
            QCOMPARE(a["state"].get<std::string>(), std::string(states[i]));
            QCOMPARE(a["reason"].get<std::string>(), std::string(reasons[i]));
            QCOMPARE(a["kernels"].get<int>(), 1); // three pointwise nodes fuse into one kernel
            for (const char* field : {"id", "state", "reason", "reason_code", "key", "kernels",
                                      "extern_nodes", "nodes"}) {
                QVERIFY2(a[field] == b[field], field);
            }
            if (a["state"] == "miss") { // a hit's headline names the compile time it saves
                QCOMPARE(a["headline"], b["headline"]);
            }
        }
        QCOMPARE(one["regions"][2]["key"], one["regions"][1]["key"]);
        const auto stored = entries(db1);
        QCOMPARE(stored.size(), std::size_t(3));
        for (const auto& [key, status] : stored) {
            QCOMPARE(status, std::string("verified"));
        }
        QCOMPARE(entries(db2), stored);
    }

    void buildsOverlapWithTwoJobsOnly()
    {
        const QString log1 = m_dir.path() + "/builds1.log";
        const QString log2 = m_dir.path() + "/builds2.log";
        const json one = compile(m_dir.path() + "/logged1/cache.db", 1,
                                 loggingCompiler("cxx1.sh", log1));
        const json two = compile(m_dir.path() + "/logged2/cache.db", 2,
                                 loggingCompiler("cxx2.sh", log2));
        QVERIFY(one.is_object() && two.is_object());
        const auto b1 = builds(log1);
        const auto b2 = builds(log2);
        // Three distinct keys, three builds each: the isomorphic r1 and r2 build once.
        QCOMPARE(b1.size(), std::size_t(3));
        QCOMPARE(b2.size(), std::size_t(3));
        for (const auto* b : {&b1, &b2}) {
            for (const auto& [pid, t] : *b) {
                QVERIFY2(t.start > 0 && t.end > t.start, pid.constData());
            }
        }
        QCOMPARE(overlaps(b1), 0);
        QVERIFY2(overlaps(b2) >= 1, "no two builds ran at once with --jobs 2");
        QCOMPARE(two["regions"][2]["state"].get<std::string>(), std::string("hit"));
    }

    // Ctrl-C stops a compile at a safe point: the running compilers are killed (no build ends),
    // nothing is stored, the JSON says cancelled and the exit status is 130. Before, the signal
    // killed the program.
    void interruptStopsTheBuilds()
    {
        const QString log = m_dir.path() + "/slow.log";
        const QString path = m_dir.path() + "/slow.sh";
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        const QByteArray l = log.toLocal8Bit();
        f.write("#!/bin/sh\ncase \" $* \" in *\" -o \"*)\n  echo \"start $$ 0\" >> '" + l +
                "'\n  sleep 20\n  c++ \"$@\"; rc=$?\n  echo \"end $$ 0\" >> '" + l +
                "'\n  exit $rc;;\nesac\nexec c++ \"$@\"\n");
        f.close();
        ::chmod(path.toLocal8Bit().constData(), 0700);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("FXSCOPE_CXX", path);
        const QString db = m_dir.path() + "/interrupted/cache.db";
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(FXSCOPE_CLI_PATH),
                {"compile", kGraph, "--auto", "--cache", db, "--json", "--repeat", "1",
                 "--jobs", "2"});
        QVERIFY(p.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(!builds(log).empty(), 60000); // a compiler is running
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(15000)); // long before the 20 s compiler would end
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 130);
        const json j = json::parse(p.readAllStandardOutput().toStdString(), nullptr, false);
        QVERIFY(j.is_object());
        QCOMPARE(j["cancelled"].get<bool>(), true);
        QVERIFY(j["regions"].size() < 4);
        for (const auto& [pid, b] : builds(log)) {
            QVERIFY2(b.end < 0, pid.constData()); // no build went on to its end
        }
        QVERIFY(entries(db).empty());
    }

    void runCompiledTakesJobs()
    {
        const auto r = runCli({"run", kGraph, "--compiled", "--auto", "--cache",
                               m_dir.path() + "/run/cache.db", "--jobs", "2", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j["compiled"].get<bool>(), true);
        QCOMPARE(j["regions"].size(), std::size_t(4));
        for (const auto& region : j["regions"]) {
            QCOMPARE(region["kernels"].get<int>(), 1);
        }
        const auto alone = runCli({"run", kGraph, "--jobs", "2"});
        QVERIFY(alone.exitCode != 0);
        QVERIFY2(alone.err.contains("--jobs requires --compiled"), alone.err.constData());
    }

    void jobsMustBeANumberInRange()
    {
        const auto r = runCli({"compile", kGraph, "--auto", "--jobs", "-1"});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("--jobs: Value -1 not in range 0 to 256"), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliCompileJobs)
#include "tst_cli_compile_jobs.moc"

FXSCOPE_TEST_END
