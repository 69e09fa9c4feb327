// fxscope-cli explain end to end: JSON contract on the fixtures (values checked by hand from the
// logs: see tests/unit/explain/tst_explainer_fixtures.cpp), human output, one-run mode, exit
// codes and the one-line error for a run that cannot be read.
#include "tests/cli/cli_runner.h"
#include "tests/test_file.h"

#include <nlohmann/json.hpp>

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using nlohmann::json;

namespace {

using fxs::test::runCli;

const QString kTraces = QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/traces/");

using CliResult = fxs::test::CliRun;

json explainJson(const QStringList& runs)
{
    const auto r = runCli(QStringList{"explain"} + runs + QStringList{"--json"});
    if (r.exitCode != 0) {
        qFatal("explain failed (%d): %s", r.exitCode, r.err.constData());
    }
    return json::parse(r.out.toStdString());
}

} // namespace

class TestCliExplain : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void configMissesJson()
    {
        const json j = explainJson({kTraces + "basic_cold", kTraces + "basic_config"});
        QCOMPARE(j.at("lookups").size(), std::size_t(3));
        const std::vector<std::string> caches{"aotautograd", "fx_graph", "fx_graph"};
        const std::vector<std::string> keys{"a3ltrfpvklftrwfzwelh434kkerzwheuuzups3cck7r3hsbfqand",
                                            "fxu5kuxbvziced4l46odcic2gatxzw7tyk7w7bo5pxuykvbzwz34",
                                            "flp2hvnybt26sc3fc53yzsxblddfwparn7ifekt5wu7rtux3exmx"};
        const std::vector<std::string> matched{
            "avddz3w5f2geiueawjvndebxkxjym6xzd3menaq5e74jy3j7fwen",
            "fok4sqjz3xt6ytz5cvvggv6f34dqyvragfdprjfoa2m7yjbjqbaz",
            "fid3lawveps2aqnj7gbew4kwbo7xbmsa7gdqyn6iagbi47gybqiz"};
        for (std::size_t i = 0; i < 3; ++i) {
            const json& l = j["lookups"][i];
            QCOMPARE(l.at("compile_id").get<std::string>(), std::string("0/0"));
            QCOMPARE(l.at("cache").get<std::string>(), caches[i]);
            QCOMPARE(l.at("state").get<std::string>(), std::string("miss"));
            QCOMPARE(l.at("key").get<std::string>(), keys[i]);
            QCOMPARE(l.at("matched_key").get<std::string>(), matched[i]);
            QCOMPARE(l.at("matched_state").get<std::string>(), std::string("miss"));
            QVERIFY(l.at("headline").get<std::string>().find("max_fusion_size") !=
                    std::string::npos);
            const json& d = l.at("diff");
            QCOMPARE(d.size(), std::size_t(1));
            QCOMPARE(d[0].at("component").get<std::string>(),
                     std::string("inductor_config[max_fusion_size]"));
            QCOMPARE(d[0].at("family").get<std::string>(), std::string("inductor_config"));
            QCOMPARE(d[0].at("change").get<std::string>(), std::string("changed"));
            QCOMPARE(d[0].at("a").get<std::string>(), std::string("64"));
            QCOMPARE(d[0].at("b").get<std::string>(), std::string("32"));
            QVERIFY(l.at("graph_diff").is_null());
        }
        // AOT misses log no time_taken_ns; FX misses do.
        QVERIFY(j["lookups"][0].at("cost_ns").is_null());
        QCOMPARE(j["lookups"][1].at("cost_ns").get<std::int64_t>(), std::int64_t(428851264));
        QCOMPARE(j.at("mode").get<std::string>(), std::string("compare"));
    }

    void warmHitsAndBypassJson()
    {
        const json warm = explainJson({kTraces + "basic_cold", kTraces + "basic_warm"});
        QCOMPARE(warm.at("lookups").size(), std::size_t(3));
        for (const json& l : warm["lookups"]) {
            QCOMPARE(l.at("state").get<std::string>(), std::string("hit"));
            QCOMPARE(l.at("key"), l.at("matched_key"));
            QVERIFY(l.at("diff").empty());
        }
        const json fn = explainJson({kTraces + "autograd_fn_cold", kTraces + "autograd_fn_warm"});
        const json& aot = fn["lookups"][0];
        QCOMPARE(aot.at("state").get<std::string>(), std::string("bypass"));
        QVERIFY(aot.at("key").is_null());
        QVERIFY(aot.at("matched_key").is_null());
        QCOMPARE(aot.at("matched_state").get<std::string>(), std::string("bypass"));
        QVERIFY(aot.at("headline").get<std::string>().rfind(
                    "bypass: Unsupported call_function target autograd_function_apply", 0) == 0);
    }

    void oneRunAndHumanOutput()
    {
        const json within = explainJson({kTraces + "regional_cold"});
        QCOMPARE(within.at("mode").get<std::string>(), std::string("within"));
        QCOMPARE(within.at("lookups").size(), std::size_t(4));
        int disabled = 0;
        for (const json& l : within["lookups"]) {
            disabled += l.at("state").get<std::string>() == "disabled" ? 1 : 0;
        }
        QCOMPARE(disabled, 2);

        const auto human = runCli({"explain", kTraces + "basic_cold", kTraces + "basic_config"});
        QCOMPARE(human.exitCode, 0);
        const QString text = QString::fromUtf8(human.out);
        QVERIFY(text.contains("miss: inductor_config[max_fusion_size] changed 64"));
        QVERIFY(text.contains("3 lookups: 0 hit, 3 miss, 0 bypass, 0 disabled"));
    }

    void unreadableRunFails()
    {
        const auto missing = runCli({"explain", kTraces + "basic_cold", "/nonexistent/run"});
        QVERIFY(missing.exitCode != 0);
        QVERIFY(missing.out.isEmpty());
        QCOMPARE(missing.err.count('\n'), 1);
        QVERIFY(missing.err.contains("/nonexistent/run"));

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString garbage = dir.filePath("garbage.log");
        QFile f(garbage);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not a TORCH_TRACE log\n");
        f.close();
        const auto bad = runCli({"explain", garbage, "--json"});
        QVERIFY(bad.exitCode != 0);
        QCOMPARE(bad.err.count('\n'), 1);
        const auto usage = runCli({"explain"});
        QVERIFY(usage.exitCode != 0);
    }
};

QTEST_GUILESS_MAIN(TestCliExplain)
#include "tst_cli_explain.moc"

FXSCOPE_TEST_END
