// Explainer facade on hand-built runs: every verdict and its headline, costs, partners, the
// graph diff of a changed gm, and the edge cases (an empty run, a lookup without components,
// unequal numbers of lookups, duplicated keys, cancellation).
#include "core/explain/explainer.h"
#include "tests/test_file.h"
#include "tests/unit/explain/lookup_factory.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::explain;
using fxs::test::comp;
using model::CacheKind;
using model::CacheState;

namespace {

const std::string kArrow = " \u2192 ";

model::Run runOf(std::vector<model::CacheLookup> lookups)
{
    model::Run r;
    r.path = "run";
    r.lookups = std::move(lookups);
    return r;
}

std::vector<model::KeyComponent> withInput(const std::string& shape)
{
    auto cs = test::typicalComponents(20);
    cs[20] = comp("example_inputs[0]", "TensorMetadata(dtype=torch.float32, shape=torch.Size([" +
                                           shape + "]), stride=(64, 1), "
                                           "device=device(type='cuda', index=0))");
    return cs;
}

bool contains(const std::string& s, const std::string& part)
{
    return s.find(part) != std::string::npos;
}

const std::string kGmA = "GraphModule()\n\n\n\ndef forward(self, x):\n"
                         "    sin = torch.ops.aten.sin.default(x)\n"
                         "    return (sin,)\n    ";
const std::string kGmB = "GraphModule()\n\n\n\ndef forward(self, x):\n"
                         "    sin = torch.ops.aten.cos.default(x)\n"
                         "    return (sin,)\n    ";

} // namespace

class TestExplainer : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void configChangeIsTheCause()
    {
        auto a = test::fxMiss("fa", test::typicalComponents(539, 64));
        a.timeTakenNs = 1'500'000'000;
        auto b = test::fxMiss("fb", test::typicalComponents(539, 32));
        b.timeTakenNs = 400'000'000;
        const auto ex = explainRuns(runOf({a}), runOf({b}));
        QVERIFY(ex.ok());
        QCOMPARE(ex->lookups.size(), std::size_t(1));
        const auto& e = ex->lookups[0];
        QCOMPARE(e.verdict, Verdict::ComponentsChanged);
        QCOMPARE(e.headline, "miss: inductor_config[max_fusion_size] changed 64" + kArrow +
                                 "32 (1 of 543 components)");
        QCOMPARE(e.partner, std::optional<std::size_t>(0));
        QCOMPARE(e.partnerState, std::optional<CacheState>(CacheState::Miss));
        QCOMPARE(e.partnerKey, std::optional<std::string>("fa"));
        QCOMPARE(e.costNs, std::optional<std::int64_t>(400'000'000));
        QCOMPARE(e.diff.changes.size(), std::size_t(1));
        QVERIFY(!e.graphDiff);
        QCOMPARE(ex->lookupsA, std::size_t(1));
        QCOMPARE(ex->count(CacheState::Miss), std::size_t(1));
    }

    void inputShapeChange()
    {
        const auto ex = explainRuns(runOf({test::fxMiss("fa", withInput("64, 64"))}),
                                    runOf({test::fxMiss("fb", withInput("128, 64"))}));
        QVERIFY(ex.ok());
        QCOMPARE(ex->lookups[0].headline, "miss: example_inputs[0] shape [64, 64]" + kArrow +
                                              "[128, 64] (1 of 24 components)");
    }

    void gmChangeCarriesAGraphDiff()
    {
        auto ca = test::typicalComponents(5);
        auto cb = ca;
        ca.push_back(comp("gm", kGmA));
        cb.push_back(comp("gm", kGmB));
        const auto ex = explainRuns(runOf({test::fxMiss("fa", ca)}),
                                    runOf({test::fxMiss("fb", cb)}));
        QVERIFY(ex.ok());
        const auto& e = ex->lookups[0];
        QVERIFY(e.graphDiff);
        QVERIFY(e.graphDiff->parsed);
        QCOMPARE(e.graphDiff->nodes.size(), std::size_t(1));
        QCOMPARE(e.graphDiff->nodes[0].name, std::string("sin"));
        QCOMPARE(e.graphDiff->nodes[0].targetB, std::string("aten::cos.default"));
        // One node: the headline names it, both sides (short target and arguments).
        QCOMPARE(e.headline, "miss: gm changed: sin(x)" + kArrow + "cos(x) (1 of 10 components)");
        QVERIFY(startsWith(e.diff.changes[0].a, "<graph code, 8 lines"));
    }

    void gmChangeOfAnOperatorNamesTheFunction()
    {
        // Issue 26: the changed node is operator.mul; the headline names mul, not operator.
        auto gm = [](const std::string& factor) {
            return "GraphModule()\n\n\n\ndef forward(self, x):\n"
                   "    gelu = torch._C._nn.gelu(x);  x = None\n"
                   "    mul = gelu * " + factor + ";  gelu = None\n"
                   "    return (mul,)\n    ";
        };
        auto ca = test::typicalComponents(5);
        auto cb = ca;
        ca.push_back(comp("gm", gm("2.0")));
        cb.push_back(comp("gm", gm("3.0")));
        const auto ex = explainRuns(runOf({test::fxMiss("fa", ca)}),
                                    runOf({test::fxMiss("fb", cb)}));
        QVERIFY(ex.ok());
        QCOMPARE(ex->lookups[0].headline, "miss: gm changed: mul(gelu, 2.0)" + kArrow +
                                              "mul(gelu, 3.0) (1 of 10 components)");
    }

    void environmentOnly()
    {
        auto ca = test::typicalComponents(5);
        auto cb = ca;
        QCOMPARE(cb[7].name, std::string("torch_version"));
        cb[7] = comp("torch_version", std::string("\x80\x02}q\x07", 5));
        cb[7].readable = false;
        const auto ex = explainRuns(runOf({test::fxMiss("fa", ca)}),
                                    runOf({test::fxMiss("fb", cb)}));
        QVERIFY(ex.ok());
        const auto& e = ex->lookups[0];
        QCOMPARE(e.verdict, Verdict::EnvironmentChanged);
        QVERIFY(startsWith(e.headline, "miss: torch_version changed <pickle, digest "));
        QVERIFY(contains(e.headline, "a different PyTorch build (1 of 9 components)"));
    }

    void hitsSameKeysBypassesAndDisabled()
    {
        auto hitB = test::fxHit("fok4sqjz3xt6ytz5", test::typicalComponents(3));
        hitB.timeSavedNs = 1'535'050'371;
        auto aotHit = test::lookup(CacheKind::AotAutograd, CacheState::Hit, "avddz3w5f2", {});
        aotHit.timeSavedMs = 2599.0;
        auto disabled = test::lookup(CacheKind::FxGraph, CacheState::Disabled, {}, {}, "1/0");
        disabled.bypassReason = "cache not enabled";
        const auto b = runOf({hitB, aotHit,
                              test::bypass(CacheKind::AotAutograd,
                                           "Unsupported call_function target "
                                           "autograd_function_apply. \n Function module: x"),
                              disabled});
        const auto a = runOf({test::fxMiss("fok4sqjz3xt6ytz5", test::typicalComponents(3)),
                              test::aotMiss("avddz3w5f2", {})});
        const auto ex = explainRuns(a, b);
        QVERIFY(ex.ok());
        QCOMPARE(ex->lookups[0].headline, std::string("hit: fok4sqjz3x\u2026 (saved 1535 ms)"));
        QCOMPARE(ex->lookups[0].verdict, Verdict::Hit);
        QCOMPARE(ex->lookups[0].costNs, std::optional<std::int64_t>(1'535'050'371));
        QVERIFY(ex->lookups[0].diff.empty());
        QCOMPARE(ex->lookups[1].headline, std::string("hit: avddz3w5f2 (saved 2599 ms)"));
        QCOMPARE(ex->lookups[1].costNs, std::optional<std::int64_t>(2'599'000'000));
        QCOMPARE(ex->lookups[2].verdict, Verdict::Bypass);
        QCOMPARE(ex->lookups[2].headline,
                 std::string("bypass: Unsupported call_function target "
                             "autograd_function_apply. Function module: x"));
        QVERIFY(!ex->lookups[2].costNs);
        QCOMPARE(ex->lookups[3].verdict, Verdict::Disabled);
        QCOMPARE(ex->lookups[3].headline,
                 std::string("disabled: the fx_graph cache is turned off (cache not enabled)"));
        QVERIFY(!ex->lookups[3].partner);
    }

    void sameKeyMissMeansTheEntryWasAbsent()
    {
        const auto comps = test::typicalComponents(4);
        const auto ex = explainRuns(runOf({test::fxHit("fsame", comps)}),
                                    runOf({test::fxMiss("fsame", comps)}));
        QVERIFY(ex.ok());
        const auto& e = ex->lookups[0];
        QCOMPARE(e.verdict, Verdict::EntryAbsent);
        QVERIFY(startsWith(e.headline, "miss: same key as A (hit), no component changed: the "
                                       "entry was absent"));
        QVERIFY(e.diff.empty());
    }

    void partnerBypassedAndGuardMiss()
    {
        const auto comps = test::typicalComponents(4);
        auto guard = test::aotMiss("a2", comps);
        guard.detailedStatus = "guard_miss";
        guard.guardExpression = "L['x'].size()[0] == 64";
        const auto ex = explainRuns(
            runOf({test::bypass(CacheKind::AotAutograd, "Unsupported call_function target")}),
            runOf({test::aotMiss("a1", comps), guard}));
        QVERIFY(ex.ok());
        QCOMPARE(ex->lookups[0].verdict, Verdict::PartnerUncached);
        QCOMPARE(ex->lookups[0].headline,
                 std::string("miss: A bypassed the cache (Unsupported call_function target), "
                             "so nothing was stored"));
        QCOMPARE(ex->lookups[0].partnerState, std::optional<CacheState>(CacheState::Bypass));
        QVERIFY(!ex->lookups[0].partnerKey);
        QCOMPARE(ex->lookups[1].verdict, Verdict::GuardMiss);
        QCOMPARE(ex->lookups[1].headline,
                 std::string("miss: the key was found but a guard failed: L['x'].size()[0] == 64"));
    }

    void oneRunEmpty()
    {
        const auto some = runOf({test::fxMiss("f1", test::typicalComponents(3)),
                                 test::fxHit("f2", test::typicalComponents(3))});
        const auto ex = explainRuns(model::Run{}, some);
        QVERIFY(ex.ok());
        QCOMPARE(ex->lookups.size(), std::size_t(2));
        QCOMPARE(ex->lookups[0].verdict, Verdict::NoPartner);
        QCOMPARE(ex->lookups[0].headline, std::string("miss: no counterpart in A to compare with"));
        QVERIFY(!ex->lookups[0].partnerState);
        QCOMPARE(ex->lookups[1].verdict, Verdict::Hit);
        const auto none = explainRuns(some, model::Run{});
        QVERIFY(none.ok());
        QVERIFY(none->lookups.empty());
        QCOMPARE(none->lookupsA, std::size_t(2));
        const auto within = explainWithin(model::Run{});
        QVERIFY(within.ok());
        QVERIFY(within->lookups.empty());
    }

    void lookupWithoutComponents()
    {
        const auto ex = explainRuns(runOf({test::fxMiss("fa", test::typicalComponents(3))}),
                                    runOf({test::fxMiss("fb", {})}));
        QVERIFY(ex.ok());
        QCOMPARE(ex->lookups[0].verdict, Verdict::NoComponents);
        QCOMPARE(ex->lookups[0].headline,
                 std::string("miss: no key components were logged; nothing to compare"));
        // The diff still lists what A had.
        QCOMPARE(ex->lookups[0].diff.changes.size(), std::size_t(7));
        const auto same = explainRuns(runOf({test::fxMiss("fa", {})}),
                                      runOf({test::fxMiss("fb", {})}));
        QCOMPARE(same->lookups[0].verdict, Verdict::NoComponents);
    }

    void unequalNumbersOfLookups()
    {
        const auto fw = test::typicalComponents(10, 64);
        auto bw32 = test::typicalComponents(10, 32);
        QCOMPARE(bw32[11].name, std::string("fx_kwargs[is_backward]"));
        bw32[11] = comp("fx_kwargs[is_backward]", "True");
        // A: forward only. B: forward (same key: hit) and a backward with max_fusion_size 32.
        const auto ex = explainRuns(runOf({test::fxMiss("ffw", fw)}),
                                    runOf({test::fxHit("ffw", fw), test::fxMiss("fbw", bw32)}));
        QVERIFY(ex.ok());
        QCOMPARE(ex->lookups[1].matchKind, MatchKind::Similarity);
        QCOMPARE(ex->lookups[1].partner, std::optional<std::size_t>(0));
        QCOMPARE(ex->lookups[1].diff.changes.size(), std::size_t(2));
        QCOMPARE(ex->lookups[1].diff.changes[0].component,
                 std::string("inductor_config[max_fusion_size]"));
        QCOMPARE(ex->lookups[1].diff.changes[1].component, std::string("fx_kwargs[is_backward]"));
        QVERIFY(contains(ex->lookups[1].headline, "(2 of 14 components)"));
    }

    void duplicatedKeysAcrossRuns()
    {
        // B looks the same key up twice (both misses) where A had it once; A holds the key
        // twice where B has it once.
        const auto comps = test::typicalComponents(4);
        const auto a = runOf({test::fxMiss("fdup", comps)});
        const auto b = runOf({test::fxMiss("fdup", comps), test::fxMiss("fdup", comps)});
        const auto ex = explainRuns(a, b);
        QVERIFY(ex.ok());
        QCOMPARE(ex->lookups[0].matchKind, MatchKind::Position);
        QCOMPARE(ex->lookups[1].matchKind, MatchKind::Similarity);
        for (const auto& e : ex->lookups) {
            QCOMPARE(e.partner, std::optional<std::size_t>(0));
            QCOMPARE(e.verdict, Verdict::EntryAbsent);
            QVERIFY(e.diff.empty());
        }
        const auto back = explainRuns(b, a);
        QVERIFY(back.ok());
        QCOMPARE(back->lookups.size(), std::size_t(1));
        QCOMPARE(back->lookups[0].partner, std::optional<std::size_t>(0));
        QCOMPARE(back->lookups[0].verdict, Verdict::EntryAbsent);
    }

    void withinOneRun()
    {
        const auto comps = test::typicalComponents(6);
        auto bigger = withInput("128, 64");
        auto dup = test::fxMiss("f1", comps, "1/0");
        const auto run = runOf({test::fxMiss("f1", comps), test::fxHit("f1", comps, "0/1"),
                                test::fxMiss("f2", withInput("64, 64"), "0/2"),
                                test::fxMiss("f3", bigger, "0/3"), dup});
        const auto ex = explainWithin(run);
        QVERIFY(ex.ok());
        QVERIFY(ex->within);
        QCOMPARE(ex->lookups.size(), std::size_t(5));
        QCOMPARE(ex->lookups[0].headline, std::string("miss: first lookup of this graph"));
        QCOMPARE(ex->lookups[1].verdict, Verdict::Hit);
        QCOMPARE(ex->lookups[1].partner, std::optional<std::size_t>(0));
        QCOMPARE(ex->lookups[1].matchKind, MatchKind::SameKey);
        QCOMPARE(ex->lookups[1].headline,
                 std::string("hit: f1, the entry stored by the miss of earlier lookup #0 (0/0)"));
        // Repeated miss of the same graph with another input shape: compared with the most
        // similar earlier lookup (#2).
        QCOMPARE(ex->lookups[3].partner, std::optional<std::size_t>(2));
        QCOMPARE(ex->lookups[3].headline, "miss: example_inputs[0] shape [64, 64]" + kArrow +
                                              "[128, 64] (1 of 24 components)");
        // Duplicated key: a second miss of key f1 although #0 stored it.
        QCOMPARE(ex->lookups[4].verdict, Verdict::EntryAbsent);
        QCOMPARE(ex->lookups[4].partner, std::optional<std::size_t>(1));
        QVERIFY(startsWith(ex->lookups[4].headline,
                           "miss: same key as earlier lookup #1 (0/1) (hit)"));
    }

    void explainsAChosenPair()
    {
        const auto a = test::fxMiss("fa", test::typicalComponents(8, 64));
        const auto b = test::fxMiss("fb", test::typicalComponents(8, 16));
        const auto e = explainLookup(b, &a, "lookup #7");
        QCOMPARE(e.matchKind, MatchKind::Chosen);
        QVERIFY(contains(e.headline, "64" + kArrow + "16"));
        const auto alone = explainLookup(b, nullptr, "lookup #7");
        QCOMPARE(alone.verdict, Verdict::NoPartner);
    }

    void cancels()
    {
        CancelToken token;
        token.cancel();
        const auto run = runOf({test::fxMiss("f", test::typicalComponents(3))});
        const auto ex = explainRuns(run, run, token);
        QVERIFY(!ex.ok());
        QCOMPARE(ex.error().code, ErrorCode::Cancelled);
        int calls = 0;
        const auto ok = explainWithin(run, CancelToken::none(),
                                      [&calls](double, std::string_view) { ++calls; });
        QVERIFY(ok.ok());
        QVERIFY(calls >= 2);
    }
};

QTEST_GUILESS_MAIN(TestExplainer)
#include "tst_explainer.moc"

FXSCOPE_TEST_END
