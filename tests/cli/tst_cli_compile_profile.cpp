// fxscope-cli compile-profile end to end on the gpt_cold trace: the JSON contract (one compile
// "0/0" whose top-level phases sum to total_ms, the aotautograd/fx_graph cache misses) and the
// Chrome trace it writes; a missing trace fails.
#include "tests/cli/cli_runner.h"
#include "tests/test_file.h"

#include <QtTest>

#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

FXSCOPE_TEST_BEGIN

using nlohmann::json;

namespace {

using fxs::test::CliRun;
using fxs::test::runCli;

const QString kTrace = QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/traces/gpt_cold");

} // namespace

class TestCliCompileProfile : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void jsonContractOnGptCold()
    {
        QTemporaryDir dir;
        const QString chrome = dir.filePath("c.json");
        auto r = runCli({"compile-profile", kTrace, "--json", "--trace", chrome});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json j = json::parse(r.out.toStdString(), nullptr, false);
        QVERIFY(!j.is_discarded());
        QVERIFY(j.at("warnings").is_array());
        QCOMPARE(j.at("compiles").size(), std::size_t{1});
        const auto& c = j.at("compiles")[0];
        QCOMPARE(c.at("compile_id").get<std::string>(), std::string("0/0"));
        double sum = 0;
        for (const auto& p : c.at("phases")) {
            QVERIFY(p.contains("name") && p.contains("children"));
            sum += p.at("ms").get<double>();
        }
        QVERIFY(std::abs(sum - c.at("total_ms").get<double>()) < 1e-6);
        // The outermost "dynamo" phase spans 13531.136 ms in the log (B/E timestamps).
        QVERIFY(c.at("total_ms").get<double>() >= 13531.13);
        bool aotMiss = false;
        for (const auto& k : c.at("cache")) {
            aotMiss |= k.at("cache") == "aotautograd" && k.at("state") == "miss";
        }
        QVERIFY(aotMiss);
        std::ifstream in(chrome.toStdString());
        std::stringstream s;
        s << in.rdbuf();
        const json t = json::parse(s.str(), nullptr, false);
        QVERIFY(!t.is_discarded());
        QCOMPARE(t.at("traceEvents").size(), std::size_t{101}); // 101 B/E pairs in the log
    }

    void missingTraceFails()
    {
        QVERIFY(runCli({"compile-profile", "/nonexistent/trace", "--json"}).exitCode != 0);
    }
};

QTEST_GUILESS_MAIN(TestCliCompileProfile)
#include "tst_cli_compile_profile.moc"

FXSCOPE_TEST_END
