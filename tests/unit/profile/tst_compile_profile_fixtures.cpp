// The compile profile of the shared gpt_cold trace against totals computed here independently:
// the log's chromium_event payloads are read line by line, parsed with nlohmann, and B/E events
// paired by name per (pid, tid). Also: the Chrome traces of both profile kinds validate.
#include "core/io/torch_trace_reader.h"
#include "core/trace_profile/chrome_trace.h"
#include "core/trace_profile/compile_profile.h"
#include "tests/test_file.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <QDir>
#include <fstream>
#include <map>
#include <sstream>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::profile;

namespace {

const std::string kDir = FXSCOPE_TEST_DATA "/fixtures/traces/gpt_cold";

std::vector<nlohmann::json> chromiumEvents()
{
    const QStringList logs = QDir(QString::fromStdString(kDir)).entryList({"*.log"});
    std::ifstream in(kDir + "/" + logs.value(0).toStdString());
    std::vector<nlohmann::json> out;
    std::string line;
    std::string payload;
    bool inPayload = false;
    auto flush = [&] {
        if (inPayload) {
            out.push_back(nlohmann::json::parse(payload));
        }
        payload.clear();
        inPayload = false;
    };
    while (std::getline(in, line)) {
        if (!line.empty() && line[0] == '\t') {
            payload += inPayload ? line.substr(1) + "\n" : "";
            continue;
        }
        flush();
        inPayload = line.find("{\"chromium_event\":") != std::string::npos;
    }
    flush();
    return out;
}

struct Open {
    std::string name;
    double ts;
    std::string compileId;
};

// (compile id, phase name) -> ms
std::map<std::pair<std::string, std::string>, double> independentTotals(int& unmatched)
{
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<Open>> stacks;
    std::map<std::pair<std::string, std::string>, double> totals;
    unmatched = 0;
    for (const auto& e : chromiumEvents()) {
        auto& stack = stacks[{e.at("pid").get<std::int64_t>(), e.at("tid").get<std::int64_t>()}];
        const std::string ph = e.at("ph");
        const std::string name = e.at("name");
        const double ts = e.at("ts").get<double>();
        if (ph == "B") {
            std::string cid = e.contains("args") ? e["args"].value("compile_id", "") : "";
            if (cid.empty() && !stack.empty()) {
                cid = stack.back().compileId;
            }
            stack.push_back({name, ts, cid});
        } else if (ph == "E") {
            auto it = std::find_if(stack.rbegin(), stack.rend(),
                                   [&](const Open& o) { return o.name == name; });
            if (it == stack.rend()) {
                ++unmatched;
                continue;
            }
            totals[{it->compileId, name}] += (ts - it->ts) / 1000.0;
            stack.erase(std::next(it).base());
        }
    }
    for (const auto& [k, s] : stacks) {
        unmatched += static_cast<int>(s.size());
    }
    return totals;
}

} // namespace

class TestCompileProfileFixtures : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void phaseTotalsEqualChromiumSums()
    {
        int unmatched = -1;
        const auto expected = independentTotals(unmatched);
        QCOMPARE(unmatched, 0);
        QCOMPARE(chromiumEvents().size(), std::size_t{205}); // grep -c chromium_event
        QVERIFY(expected.size() > 20);
        const auto read = io::readTorchTracePath(kDir);
        const auto profile = buildCompileProfile(read.run);
        QCOMPARE(profile.compiles.size(), std::size_t{1});
        const auto& c = profile.compiles.front();
        QCOMPARE(QString::fromStdString(c.compileId.toString()), QString("0/0"));
        QCOMPARE(c.totalsMs.size(), expected.size());
        for (const auto& [key, ms] : expected) {
            QCOMPARE(QString::fromStdString(key.first), QString("0/0"));
            const auto it = c.totalsMs.find(key.second);
            QVERIFY2(it != c.totalsMs.end(), key.second.c_str());
            QVERIFY2(std::abs(it->second - ms) < 1e-6, key.second.c_str());
        }
        // "dynamo" wraps the whole frame: 13531.136 ms (checked with a separate script).
        QVERIFY(std::abs(c.totalsMs.at("dynamo") - 13531.136) < 0.001);
    }

    void compileTraceValidates()
    {
        const auto read = io::readTorchTracePath(kDir);
        const auto events = compileProfileTraceEvents(buildCompileProfile(read.run));
        QCOMPARE(events.size(), std::size_t{101}); // one X event per B/E pair
        const auto status = validateChromeTrace(writeChromeTrace(events));
        QVERIFY2(status.ok(), status.ok() ? "" : status.error().toString().c_str());
    }
};

QTEST_GUILESS_MAIN(TestCompileProfileFixtures)
#include "tst_compile_profile_fixtures.moc"

FXSCOPE_TEST_END
