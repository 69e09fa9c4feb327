// The explainer on the shared PyTorch 2.11 fixtures. Expected values were taken by hand from
// the logs (grep for the cache artifacts, json-decode their payloads, count and compare the
// component lines), not from this code's output:
//   basic_cold:  aotautograd miss (538 components), fx_graph miss fwd (540), fx_graph miss bwd
//                (542), all compile id 0/0;
//   basic_warm:  fx_graph hit fwd, fx_graph hit bwd, then aotautograd hit — the same three keys;
//   basic_config: the same three lookups as misses; each key differs from basic_cold's in exactly
//                one component line, inductor_config[max_fusion_size]: 64 → 32;
//   autograd_fn_{cold,warm}: aotautograd bypass ("Unsupported call_function target
//                autograd_function_apply. ..."), then two fx_graph lookups (miss cold, hit warm,
//                same keys);
//   regional_cold: two aotautograd misses (0/0; their gm and example_inputs[2] differ: two
//                different regions) and two fx_graph_cache_disabled chromium events.
#include "core/explain/explainer.h"
#include "core/io/torch_trace_reader.h"
#include "tests/test_file.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::explain;
using model::CacheKind;
using model::CacheState;

namespace {

model::Run readFixture(const std::string& name)
{
    io::TraceReadOptions options;
    options.parseGraphs = false;
    auto r = io::readTorchTracePath(FXSCOPE_TEST_DATA "/fixtures/traces/" + name, options);
    if (!r.readSomething) {
        qFatal("fixture %s could not be read", name.c_str());
    }
    return std::move(r.run);
}

Explanation explainFixtures(const std::string& a, const std::string& b)
{
    auto ex = explainRuns(readFixture(a), readFixture(b));
    if (!ex.ok()) {
        qFatal("explainRuns failed: %s", ex.error().toString().c_str());
    }
    return std::move(*ex);
}

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

const std::string kArrow = " \u2192 ";

} // namespace

class TestExplainerFixtures : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void coldThenWarmIsAllHits()
    {
        const auto ex = explainFixtures("basic_cold", "basic_warm");
        QCOMPARE(ex.lookupsA, std::size_t(3));
        QCOMPARE(ex.lookups.size(), std::size_t(3));
        // basic_warm logs the FX hits before the AOT hit.
        const std::vector<std::pair<CacheKind, std::string>> expected{
            {CacheKind::FxGraph, "fok4sqjz3xt6ytz5cvvggv6f34dqyvragfdprjfoa2m7yjbjqbaz"},
            {CacheKind::FxGraph, "fid3lawveps2aqnj7gbew4kwbo7xbmsa7gdqyn6iagbi47gybqiz"},
            {CacheKind::AotAutograd, "avddz3w5f2geiueawjvndebxkxjym6xzd3menaq5e74jy3j7fwen"}};
        const std::vector<std::size_t> partners{1, 2, 0}; // cold order: AOT, FX fwd, FX bwd
        for (std::size_t i = 0; i < 3; ++i) {
            const auto& e = ex.lookups[i];
            QCOMPARE(e.state, CacheState::Hit);
            QCOMPARE(e.verdict, Verdict::Hit);
            QCOMPARE(e.cache, expected[i].first);
            QCOMPARE(e.key, std::optional<std::string>(expected[i].second));
            QCOMPARE(e.partner, std::optional<std::size_t>(partners[i]));
            QCOMPARE(e.matchKind, MatchKind::Position);
            QCOMPARE(e.partnerKey, e.key);
            QCOMPARE(e.partnerState, std::optional<CacheState>(CacheState::Miss));
            QVERIFY(e.diff.empty()); // nothing to explain
            QVERIFY(q(e.headline).startsWith("hit: " + q(expected[i].second.substr(0, 10))));
            QCOMPARE(e.compileId.toString(), std::string("0/0"));
        }
        // time_saved_ns of the FX hits; time_saved_ms 2599.0 of the AOT hit.
        QCOMPARE(ex.lookups[0].costNs, std::optional<std::int64_t>(1535050371));
        QCOMPARE(ex.lookups[1].costNs, std::optional<std::int64_t>(394601212));
        QCOMPARE(ex.lookups[2].costNs, std::optional<std::int64_t>(2599000000));
        QVERIFY(q(ex.lookups[0].headline).endsWith("(saved 1535 ms)"));
    }

    void configChangeExplainsEveryMiss()
    {
        const auto ex = explainFixtures("basic_cold", "basic_config");
        QCOMPARE(ex.lookups.size(), std::size_t(3));
        const std::vector<CacheKind> caches{CacheKind::AotAutograd, CacheKind::FxGraph,
                                            CacheKind::FxGraph};
        const std::vector<int> components{538, 540, 542};
        const std::vector<std::int64_t> costs{-1, 428851264, 108657060};
        for (std::size_t i = 0; i < 3; ++i) {
            const auto& e = ex.lookups[i];
            QCOMPARE(e.cache, caches[i]);
            QCOMPARE(e.state, CacheState::Miss);
            QCOMPARE(e.partner, std::optional<std::size_t>(i));
            QCOMPARE(e.partnerState, std::optional<CacheState>(CacheState::Miss));
            QCOMPARE(e.verdict, Verdict::ComponentsChanged);
            QCOMPARE(e.diff.changes.size(), std::size_t(1));
            const auto& first = e.diff.changes[0];
            QCOMPARE(first.component, std::string("inductor_config[max_fusion_size]"));
            QCOMPARE(first.family, std::string("inductor_config"));
            QCOMPARE(first.change, ChangeKind::Changed);
            QCOMPARE(first.a, std::string("64"));
            QCOMPARE(first.b, std::string("32"));
            QCOMPARE(e.diff.common + 1, std::size_t(components[i]));
            QCOMPARE(q(e.headline), q("miss: inductor_config[max_fusion_size] changed 64" +
                                      kArrow + "32 (1 of " + std::to_string(components[i]) +
                                      " components)"));
            QCOMPARE(e.costNs, costs[i] < 0 ? std::optional<std::int64_t>()
                                            : std::optional<std::int64_t>(costs[i]));
            QVERIFY(!e.graphDiff);
        }
    }

    void autogradFunctionBypass()
    {
        const auto ex = explainFixtures("autograd_fn_cold", "autograd_fn_warm");
        QCOMPARE(ex.lookups.size(), std::size_t(3));
        const auto& aot = ex.lookups[0];
        QCOMPARE(aot.cache, CacheKind::AotAutograd);
        QCOMPARE(aot.state, CacheState::Bypass);
        QCOMPARE(aot.verdict, Verdict::Bypass);
        QVERIFY(!aot.key);
        QCOMPARE(aot.partnerState, std::optional<CacheState>(CacheState::Bypass));
        QCOMPARE(q(aot.headline),
                 QString("bypass: Unsupported call_function target autograd_function_apply. "
                         "Function module: torch.ops.higher_order, Function name: "
                         "autograd_function_apply"));
        const std::vector<std::string> keys{"f7qpcxjr27cnnrn5v54lhsgmvu2u7jlyi3vwgapx3l3tml5dakhq",
                                            "fe4s5iagazhhrtrzzzdeln4wzqsuqdnp7b2pcun24otlx3gksx62"};
        for (std::size_t i = 1; i < 3; ++i) {
            const auto& fx = ex.lookups[i];
            QCOMPARE(fx.cache, CacheKind::FxGraph);
            QCOMPARE(fx.state, CacheState::Hit);
            QCOMPARE(fx.key, std::optional<std::string>(keys[i - 1]));
            QCOMPARE(fx.partnerKey, fx.key);
            QCOMPARE(fx.partnerState, std::optional<CacheState>(CacheState::Miss));
        }
        QCOMPARE(ex.lookups[1].costNs, std::optional<std::int64_t>(1182341084));
    }

    void aotLookupAgainstABypass()
    {
        // Reversed roles across programs: basic_cold's AOT miss against autograd_fn's bypass.
        const auto ex = explainFixtures("autograd_fn_cold", "basic_cold");
        const auto& aot = ex.lookups[0];
        QCOMPARE(aot.cache, CacheKind::AotAutograd);
        QCOMPARE(aot.verdict, Verdict::PartnerUncached);
        QVERIFY(q(aot.headline).startsWith("miss: A bypassed the cache (Unsupported call_function"));
        // The FX lookups are different programs: their diffs are real and graph diffs parse.
        const auto& fw = ex.lookups[1];
        QCOMPARE(fw.verdict, Verdict::ComponentsChanged);
        QVERIFY(fw.graphDiff);
        QVERIFY(fw.graphDiff->parsed);
        QVERIFY(!fw.graphDiff->nodes.empty());
    }

    void regionalWithinOneRun()
    {
        const auto run = readFixture("regional_cold");
        auto ex = explainWithin(run);
        QVERIFY(ex.ok());
        QCOMPARE(ex->lookups.size(), std::size_t(4));
        QCOMPARE(ex->count(CacheState::Miss), std::size_t(2));
        QCOMPARE(ex->count(CacheState::Disabled), std::size_t(2));
        int misses = 0;
        for (const auto& e : ex->lookups) {
            if (e.state == CacheState::Disabled) {
                QCOMPARE(e.cache, CacheKind::FxGraph);
                QCOMPARE(e.verdict, Verdict::Disabled);
                QVERIFY(q(e.headline).startsWith("disabled: the fx_graph cache is turned off"));
                QVERIFY(!e.key);
            } else {
                // Two regions, two graphs: neither miss is a repeat of the other.
                QCOMPARE(e.cache, CacheKind::AotAutograd);
                QCOMPARE(e.verdict, Verdict::NoPartner);
                QCOMPARE(e.headline, std::string("miss: first lookup of this graph"));
                ++misses;
            }
        }
        QCOMPARE(misses, 2);
    }

    void regionalTwoRegionsCompared()
    {
        // The second region's AOT lookup against the first: gm and example_inputs[2] differ.
        const auto run = readFixture("regional_cold");
        std::vector<const model::CacheLookup*> aot;
        for (const auto& l : run.lookups) {
            if (l.cache == CacheKind::AotAutograd) {
                aot.push_back(&l);
            }
        }
        QCOMPARE(aot.size(), std::size_t(2));
        const auto e = explainLookup(*aot[1], aot[0], "region 1");
        QCOMPARE(e.diff.changes.size(), std::size_t(2));
        QCOMPARE(e.diff.changes[0].component, std::string("example_inputs[2]"));
        QCOMPARE(e.diff.changes[0].change, ChangeKind::OnlyB);
        QCOMPARE(e.diff.changes[1].component, std::string("gm"));
        QVERIFY(e.graphDiff);
        QVERIFY(e.graphDiff->parsed);
        // Region 1: mul(p_0, p_1), add(mul, 1). Region 2: mul_2(p_0, p_1), mul_3(p_0, p_2).
        QCOMPARE(e.graphDiff->nodesA, std::size_t(5));
        QCOMPARE(e.graphDiff->nodesB, std::size_t(6));
        QCOMPARE(e.graphDiff->count(NodeChangeKind::Added), std::size_t(3));   // p_2, mul_2, mul_3
        QCOMPARE(e.graphDiff->count(NodeChangeKind::Removed), std::size_t(2)); // mul, add
        QCOMPARE(e.graphDiff->count(NodeChangeKind::Changed), std::size_t(1)); // output
    }

    void coldRunWithinItself()
    {
        auto ex = explainWithin(readFixture("basic_cold"));
        QVERIFY(ex.ok());
        QCOMPARE(ex->lookups.size(), std::size_t(3));
        // AOT, FX forward and FX backward are three different graphs of a cold cache.
        for (const auto& e : ex->lookups) {
            QCOMPARE(e.verdict, Verdict::NoPartner);
        }
    }
};

QTEST_GUILESS_MAIN(TestExplainerFixtures)
#include "tst_explainer_fixtures.moc"

FXSCOPE_TEST_END
