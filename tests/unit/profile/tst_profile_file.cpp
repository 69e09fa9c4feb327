// Saved run-time profiles: save → load gives an equal profile (optional values, regions, bounds
// included); other schemas, newer versions and malformed documents are refused; comparing two
// profiles pairs nodes and regions by name. Version 2 adds the whole graph compiled
// ("compiled_graph"); a version 1 file (tests/data/profile/version1_profile.json, written by hand
// in version 1's shape) still loads, without it.
#include "core/profile/profile_file.h"
#include "tests/test_file.h"

#include <QtTest>

#include <QTemporaryDir>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::profile;

namespace {

RuntimeProfile sample()
{
    RuntimeProfile p;
    p.graph = "small.py";
    p.device = "cpu";
    p.repeat = 5;
    p.total = {1.25, 0.5, 1.0, 1.5};
    p.peakBytes = 123456789012;
    p.peaks = {12.345678901234, 98.7654321};
    NodeProfile mm{"mm", "aten::mm.default", "", {0.1 / 3, 0.01, 0.03, 0.04}, std::nullopt,
                   4096, 14336, 65536.0, 0.7, Bound::Compute, 0.5};
    NodeProfile relu{"relu", "aten::relu.default", "r0", {0.2, 0.0, 0.2, 0.2}, std::nullopt,
                     4096, 8192, 0.0, 0.3, Bound::Memory, 0.08192};
    p.nodes = {mm, relu};
    RegionProfile r{"r0", {"relu"}, {0.2, 0.0, 0.2, 0.2}, 0.05, "miss", 8192, 0.0, 0.3,
                    Bound::Memory, 0.1};
    RegionProfile r1{"r1", {}, {}, std::nullopt, "", 0, 0.0, 0.0, Bound::Memory, 0.0};
    p.regions = {r, r1};
    p.notes = {"a note, with \"quotes\""};
    return p;
}

} // namespace

class TestProfileFile : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void saveLoadRoundTrips()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("p.json").toStdString();
        const RuntimeProfile p = sample();
        QVERIFY(saveProfile(path, p).ok());
        auto back = loadProfile(path);
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().toString().c_str());
        QVERIFY(*back == p);
        QCOMPARE(back->nodes[0].eager.medianMs, 0.1 / 3);
        QVERIFY(!back->regions[1].compiledMs);
        QCOMPARE(*back->regions[0].compiledMs, 0.05);
        QCOMPARE(serializeProfile(*back), serializeProfile(p));
    }

    void refusesOthers_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<int>("code");
        QTest::newRow("other schema") << R"({"schema":"x","version":1})"
                                      << int(ErrorCode::Unsupported);
        QTest::newRow("newer") << R"({"schema":"fxscope-runtime-profile","version":99})"
                               << int(ErrorCode::Unsupported);
        QTest::newRow("not json") << "{nope" << int(ErrorCode::Parse);
        QTest::newRow("missing keys") << R"({"schema":"fxscope-runtime-profile","version":1})"
                                      << int(ErrorCode::Parse);
    }

    void refusesOthers()
    {
        QFETCH(QString, json);
        QFETCH(int, code);
        auto p = parseProfile(json.toStdString());
        QVERIFY(!p.ok());
        QCOMPARE(int(p.error().code), code);
    }

    void refusesBadBound()
    {
        std::string text = serializeProfile(sample());
        const auto at = text.find("\"compute\"");
        QVERIFY(at != std::string::npos);
        text.replace(at, 9, "\"disk\"");
        QVERIFY(!parseProfile(text).ok());
    }

    void compiledGraphRoundTrips()
    {
        RuntimeProfile p = sample();
        p.compiledGraph = CompiledGraphProfile{
            {1.5, 0.5, 1.25, 1.75}, {0.75, 0.25, 0.625, 0.875}, 1, 2, 0.5, 0.875, 3};
        const std::string text = serializeProfile(p);
        QVERIFY(text.find("\"matmul_groups\": 3") != std::string::npos);
        QVERIFY(text.find("\"version\": 2") != std::string::npos);
        QVERIFY(text.find("\"compiled_graph\"") != std::string::npos);
        auto back = parseProfile(text);
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().toString().c_str());
        QVERIFY(back->compiledGraph.has_value());
        QCOMPARE(back->compiledGraph->eager.medianMs, 1.5);
        QCOMPARE(back->compiledGraph->eager.maxMs, 1.75);
        QCOMPARE(back->compiledGraph->total.medianMs, 0.75);
        QCOMPARE(back->compiledGraph->total.spreadMs, 0.25);
        QCOMPARE(back->compiledGraph->regionsUsed, 1);
        QCOMPARE(back->compiledGraph->regionsTotal, 2);
        QCOMPARE(*back->compiledGraph->deviceMs, 0.5);
        QCOMPARE(*back->compiledGraph->eagerDeviceMs, 0.875);
        QCOMPARE(back->compiledGraph->matmulGroups, 3);
        QVERIFY(*back == p);
        // A file written before the groups were counted has none; a negative count is refused.
        const std::string key = "\"matmul_groups\": 3,";
        std::string older = text;
        older.erase(older.find(key), key.size());
        back = parseProfile(older);
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().toString().c_str());
        QCOMPARE(back->compiledGraph->matmulGroups, 0);
        std::string negative = text;
        negative.replace(negative.find("\"matmul_groups\": 3"), 18, "\"matmul_groups\": -1");
        QVERIFY(!parseProfile(negative).ok());
        // The CPU has no device times: null in the file, nullopt back.
        p.compiledGraph->deviceMs.reset();
        p.compiledGraph->eagerDeviceMs.reset();
        back = parseProfile(serializeProfile(p));
        QVERIFY(back.ok());
        QVERIFY(*back == p);
        // Not measured: no key at all.
        p.compiledGraph.reset();
        QVERIFY(serializeProfile(p).find("compiled_graph") == std::string::npos);
        back = parseProfile(serializeProfile(p));
        QVERIFY(back.ok() && !back->compiledGraph);
    }

    void loadsVersion1Files()
    {
        auto p = loadProfile(FXSCOPE_TEST_DATA "/profile/version1_profile.json");
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        QVERIFY(!p->compiledGraph);
        QCOMPARE(p->graph, std::string("small.py"));
        QCOMPARE(p->repeat, 3);
        QCOMPARE(p->total.medianMs, 0.4);
        QCOMPARE(p->nodes.size(), std::size_t{2});
        QCOMPARE(p->regions.size(), std::size_t{1});
        QCOMPARE(*p->regions[0].compiledMs, 0.01);
        QCOMPARE(p->regions[0].compiled.maxMs, 0.011);
    }

    void refusesMoreRegionsUsedThanThereAre()
    {
        RuntimeProfile p = sample();
        p.compiledGraph = CompiledGraphProfile{{}, {0.75, 0.25, 0.625, 0.875}, 3, 2, {}, {}};
        auto back = parseProfile(serializeProfile(p));
        QVERIFY(!back.ok());
        QCOMPARE(back.error().code, ErrorCode::Parse);
    }

    void comparesCompiledTotals()
    {
        RuntimeProfile a = sample();
        RuntimeProfile b = sample();
        auto c = compareProfiles(a, b);
        QVERIFY(!c.beforeCompiledTotalMs && !c.afterCompiledTotalMs);
        b.compiledGraph = CompiledGraphProfile{{}, {0.75, 0.0, 0.75, 0.75}, 2, 2, {}, {}};
        c = compareProfiles(a, b);
        QVERIFY(!c.beforeCompiledTotalMs);
        QCOMPARE(*c.afterCompiledTotalMs, 0.75);
        QCOMPARE(c.afterTotalMs, 1.25); // the eager total stays the eager one
    }

    void comparesByName()
    {
        RuntimeProfile a = sample();
        RuntimeProfile b = sample();
        b.total.medianMs = 2.5;
        b.nodes[1].eager.medianMs = 0.1;
        b.nodes.push_back(NodeProfile{});
        b.nodes.back().name = "new";
        b.nodes.back().eager.medianMs = 0.4;
        b.regions[0].compiledMs = 0.025;
        b.regions.pop_back();
        const auto c = compareProfiles(a, b);
        QCOMPARE(c.beforeTotalMs, 1.25);
        QCOMPARE(c.afterTotalMs, 2.5);
        QCOMPARE(c.nodes.size(), std::size_t{3});
        QCOMPARE(c.nodes[1].name, std::string("relu"));
        QCOMPARE(*c.nodes[1].ratio(), 0.5);
        QCOMPARE(c.nodes[2].name, std::string("new"));
        QVERIFY(!c.nodes[2].beforeMs);
        QVERIFY(!c.nodes[2].ratio());
        QCOMPARE(c.regions.size(), std::size_t{2});
        QCOMPARE(*c.regions[0].beforeMs, 0.05); // compiled when known
        QCOMPARE(*c.regions[0].ratio(), 0.5);
        QCOMPARE(*c.regions[1].beforeMs, 0.0); // r1 eager median; gone after
        QVERIFY(!c.regions[1].afterMs);
    }
};

QTEST_GUILESS_MAIN(TestProfileFile)
#include "tst_profile_file.moc"

FXSCOPE_TEST_END
