// Lookup matcher: position pairing (compile id, cache, order; ranks kept apart), the
// most-components-in-common fallback (checked against a brute-force count on random lookups),
// and pairing within one run (same key, repeated misses).
#include "core/explain/lookup_matcher.h"
#include "tests/test_file.h"
#include "tests/unit/explain/lookup_factory.h"

#include <QtTest>

#include <random>
#include <set>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::explain;
using fxs::test::comp;
using model::CacheKind;

namespace {

std::vector<model::KeyComponent> numbered(int from, int to, const std::string& value = "v")
{
    std::vector<model::KeyComponent> cs;
    for (int i = from; i < to; ++i) {
        cs.push_back(comp("inductor_config[c" + std::to_string(i) + "]", value));
    }
    return cs;
}

std::size_t bruteCommon(const model::CacheLookup& x, const model::CacheLookup& y)
{
    std::set<std::pair<std::string, std::string>> sx;
    for (const auto& c : x.components) {
        sx.emplace(c.name, c.digest);
    }
    std::set<std::pair<std::string, std::string>> sy;
    for (const auto& c : y.components) {
        sy.emplace(c.name, c.digest);
    }
    std::size_t n = 0;
    for (const auto& e : sy) {
        n += sx.count(e);
    }
    return n;
}

} // namespace

class TestLookupMatcher : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void pairsByCompileIdCacheAndPosition()
    {
        // Cold order (AOT miss, FX forward, FX backward) against warm order (FX hits logged
        // before the AOT hit), as in basic_cold / basic_warm.
        const std::vector<model::CacheLookup> a{test::aotMiss("a1", numbered(0, 5)),
                                                test::fxMiss("ffw", numbered(0, 5)),
                                                test::fxMiss("fbw", numbered(0, 5))};
        const std::vector<model::CacheLookup> b{test::fxHit("ffw", numbered(0, 5)),
                                                test::fxHit("fbw", numbered(0, 5)),
                                                test::lookup(CacheKind::AotAutograd,
                                                             model::CacheState::Hit, "a1",
                                                             numbered(0, 5))};
        const auto m = matchLookups(a, b);
        QCOMPARE(m.size(), std::size_t(3));
        QCOMPARE(m[0].partner, std::optional<std::size_t>(1));
        QCOMPARE(m[1].partner, std::optional<std::size_t>(2));
        QCOMPARE(m[2].partner, std::optional<std::size_t>(0));
        for (const auto& x : m) {
            QCOMPARE(x.kind, MatchKind::Position);
        }
        QCOMPARE(matchKindName(MatchKind::Position), std::string_view("position"));
    }

    void extraLookupFallsBackToMostComponentsInCommon()
    {
        // A has two FX lookups in 0/0; B has three. The third is closest to A's second.
        auto fw = numbered(0, 10, "fw");
        auto bw = numbered(0, 10, "bw");
        const std::vector<model::CacheLookup> a{test::fxMiss("f1", fw), test::fxMiss("f2", bw)};
        auto third = bw;
        third[0] = comp("inductor_config[c0]", "changed");
        const std::vector<model::CacheLookup> b{test::fxMiss("f1", fw), test::fxMiss("f2", bw),
                                                test::fxMiss("f3", third)};
        const auto m = matchLookups(a, b);
        QCOMPARE(m[2].partner, std::optional<std::size_t>(1));
        QCOMPARE(m[2].kind, MatchKind::Similarity);
        QCOMPARE(m[2].commonComponents, std::size_t(9));
    }

    void newCompileIdMatchesSameCacheOnly()
    {
        // B's lookup has compile id 1/0, which A lacks. The AOT lookup of A shares more
        // components, but only the FX lookup may be its partner.
        const std::vector<model::CacheLookup> a{test::aotMiss("a1", numbered(0, 20)),
                                                test::fxMiss("f1", numbered(0, 8)),
                                                test::fxMiss("f2", numbered(0, 3))};
        const std::vector<model::CacheLookup> b{test::fxMiss("f9", numbered(0, 20), "1/0")};
        const auto m = matchLookups(a, b);
        QCOMPARE(m[0].partner, std::optional<std::size_t>(1));
        QCOMPARE(m[0].commonComponents, std::size_t(8));
    }

    void ranksAreKeptApart()
    {
        auto a0 = test::fxMiss("f0", numbered(0, 4));
        a0.rank = 0;
        auto a1 = test::fxMiss("f1", numbered(0, 4, "r1"));
        a1.rank = 1;
        auto b1 = test::fxMiss("f1", numbered(0, 4, "r1"));
        b1.rank = 1;
        const auto m = matchLookups(std::vector{a0, a1}, std::vector{b1});
        QCOMPARE(m[0].partner, std::optional<std::size_t>(1));
        QCOMPARE(m[0].kind, MatchKind::Position);
    }

    void emptyRunsAndLookupsWithoutComponents()
    {
        const std::vector<model::CacheLookup> none;
        const std::vector<model::CacheLookup> some{test::fxMiss("f", numbered(0, 3))};
        const auto m = matchLookups(none, some);
        QCOMPARE(m.size(), std::size_t(1));
        QVERIFY(!m[0].partner);
        QCOMPARE(m[0].kind, MatchKind::None);
        QVERIFY(matchLookups(some, none).empty());
        // A bypass (no components) at a compile id A does not have: no partner.
        const std::vector<model::CacheLookup> b{
            test::bypass(CacheKind::FxGraph, "reason", "3/0")};
        QVERIFY(!matchLookups(some, b)[0].partner);
        // Nothing in common: no partner either.
        const std::vector<model::CacheLookup> c{test::fxMiss("g", numbered(10, 13), "5/0")};
        QVERIFY(!matchLookups(some, c)[0].partner);
    }

    void similarityAgreesWithBruteForce()
    {
        // Random lookups over a small pool of (name, value) pairs: some held by most lookups
        // (stored as complements in the index), some by few.
        std::mt19937 rng(1234);
        auto make = [&rng](int id, const std::string& cid) {
            std::vector<model::KeyComponent> cs;
            for (int n = 0; n < 60; ++n) {
                const int roll = static_cast<int>(rng() % 100);
                if (roll < (n < 30 ? 90 : 20)) {
                    cs.push_back(comp("inductor_config[k" + std::to_string(n) + "]",
                                      std::to_string(rng() % (n < 30 ? 2 : 5))));
                }
            }
            const auto kind = rng() % 3 == 0 ? CacheKind::AotAutograd : CacheKind::FxGraph;
            return test::lookup(kind, model::CacheState::Miss, "k" + std::to_string(id),
                                std::move(cs), cid);
        };
        std::vector<model::CacheLookup> a;
        std::vector<model::CacheLookup> b;
        for (int i = 0; i < 80; ++i) {
            a.push_back(make(i, std::to_string(i) + "/0"));
            b.push_back(make(100 + i, std::to_string(500 + i) + "/0"));
        }
        const auto m = matchLookups(a, b);
        for (std::size_t j = 0; j < b.size(); ++j) {
            std::size_t best = 0;
            std::optional<std::size_t> bestIndex;
            for (std::size_t i = 0; i < a.size(); ++i) {
                if (a[i].cache != b[j].cache) {
                    continue;
                }
                const std::size_t common = bruteCommon(a[i], b[j]);
                if (common > best) {
                    best = common;
                    bestIndex = i;
                }
            }
            QCOMPARE(m[j].partner, bestIndex);
            QCOMPARE(m[j].commonComponents, best);
        }
    }

    void withinPairsSameKeysAndRepeatedMisses()
    {
        const auto comps = numbered(0, 10);
        auto shapeChanged = comps;
        shapeChanged[3] = comp("inductor_config[c3]", "other");
        const std::vector<model::CacheLookup> run{
            test::fxMiss("f1", comps),                 // 0: first lookup: nothing earlier
            test::fxHit("f1", comps),                  // 1: hit of the key 0 stored
            test::fxMiss("f2", shapeChanged, "0/1"),   // 2: repeated miss of the same graph
            test::fxMiss("f2", shapeChanged, "0/2"),   // 3: duplicated key: latest is 2
            test::aotMiss("a1", comps),                // 4: first AOT lookup
            test::bypass(CacheKind::AotAutograd, "r"), // 5: bypass: no partner
        };
        const auto m = matchWithin(run);
        QCOMPARE(m.size(), run.size());
        QVERIFY(!m[0].partner);
        QCOMPARE(m[1].partner, std::optional<std::size_t>(0));
        QCOMPARE(m[1].kind, MatchKind::SameKey);
        QCOMPARE(m[2].partner, std::optional<std::size_t>(1));
        QCOMPARE(m[2].kind, MatchKind::Similarity);
        QCOMPARE(m[2].commonComponents, std::size_t(9));
        QCOMPARE(m[3].partner, std::optional<std::size_t>(2));
        QCOMPARE(m[3].kind, MatchKind::SameKey);
        QVERIFY(!m[4].partner); // an FX lookup is never an AOT lookup's partner
        QVERIFY(!m[5].partner);
        QVERIFY(matchWithin(std::vector<model::CacheLookup>{}).empty());
    }

    void withinDifferentGraphsAreNotPaired()
    {
        // Two regions of one compile (regional_cold): different graph code, same compile id.
        auto first = numbered(0, 10);
        first.push_back(comp("gm", "def forward(self, p_0, p_1): mul"));
        auto second = numbered(0, 10);
        second.push_back(comp("gm", "def forward(self, p_0, p_1, p_2): mul_2, mul_3"));
        // A recompile of frame 0 (0/1) whose graph code changed: same slot as 0/0's.
        auto recompiled = numbered(0, 10);
        recompiled.push_back(comp("gm", "def forward(self, p_0): s0"));
        const std::vector<model::CacheLookup> run{test::aotMiss("a1", first),
                                                  test::aotMiss("a2", second),
                                                  test::aotMiss("a3", recompiled, "0/1"),
                                                  test::aotMiss("a4", recompiled, "1/0")};
        const auto m = matchWithin(run);
        QVERIFY(!m[1].partner);
        QCOMPARE(m[2].partner, std::optional<std::size_t>(0));
        QCOMPARE(m[2].kind, MatchKind::Position);
        // 1/0 is another frame; but its graph code equals #2's.
        QCOMPARE(m[3].partner, std::optional<std::size_t>(2));
        QCOMPARE(m[3].kind, MatchKind::Similarity);
        QCOMPARE(m[3].commonComponents, std::size_t(11));
    }

    // Lookups pair within their rank first: rank 1's first miss of a graph rank 0 compiled with
    // other inputs is not explained by rank 0's lookup (that is a divergence between ranks);
    // its repeated miss pairs with its own rank's; a hit of the key rank 0 stored still names
    // rank 0's lookup when rank 1 has none of that key.
    void withinPairsWithinARankFirst()
    {
        const auto comps = numbered(0, 10);
        auto wider = comps;
        wider[3] = comp("inductor_config[c3]", "other");
        auto onRank = [](model::CacheLookup l, int rank) {
            l.rank = rank;
            return l;
        };
        const std::vector<model::CacheLookup> run{
            onRank(test::fxMiss("f1", comps), 0),         // 0: rank 0's first lookup
            onRank(test::fxMiss("f2", wider), 1),         // 1: rank 1's first: no partner
            onRank(test::fxMiss("f3", wider, "0/1"), 1),  // 2: rank 1 again: with 1
            onRank(test::fxHit("f1", comps, "1/0"), 1),   // 3: the key rank 0 stored: 0
            onRank(test::fxHit("f1", comps, "1/1"), 0),   // 4: rank 0's own hit of f1: 0
            onRank(test::fxHit("f1", comps, "1/2"), 1),   // 5: rank 1 has one now: 3
        };
        const auto m = matchWithin(run);
        QVERIFY(!m[0].partner);
        QVERIFY2(!m[1].partner, m[1].partner ? "paired across ranks" : "");
        QCOMPARE(m[2].partner, std::optional<std::size_t>(1));
        QCOMPARE(m[2].kind, MatchKind::Similarity);
        QCOMPARE(m[3].partner, std::optional<std::size_t>(0));
        QCOMPARE(m[3].kind, MatchKind::SameKey);
        QCOMPARE(m[4].partner, std::optional<std::size_t>(0));
        QCOMPARE(m[5].partner, std::optional<std::size_t>(3));
    }
};

QTEST_GUILESS_MAIN(TestLookupMatcher)
#include "tst_lookup_matcher.moc"

FXSCOPE_TEST_END
