// keydiff's component diff: pairing by the k-th occurrence of a label, digests vs texts,
// changed / only-in-A / only-in-B, the policy's rank and order, the default describer.
#include "core/keydiff/component_diff.h"
#include "tests/test_file.h"

#include <QtTest>

#include <array>
#include <string>
#include <vector>

FXSCOPE_TEST_BEGIN

using namespace fxs::keydiff;

namespace {

// Keeps the strings the Component views point into.
struct Key {
    std::vector<std::string> store;
    std::vector<Component> components;
    explicit Key(std::vector<std::array<std::string, 3>> rows) // label, digest, text
    {
        store.reserve(rows.size() * 3);
        for (auto& r : rows) {
            for (auto& s : r) {
                store.push_back(std::move(s));
            }
        }
        for (std::size_t i = 0; i < store.size(); i += 3) {
            components.push_back({store[i], {}, store[i + 1], store[i + 2]});
        }
    }
};

} // namespace

class TestComponentDiff : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void pairsTheKthOccurrenceOfALabel()
    {
        // Label x occurs three times in A and twice in B: A's first two pair with B's two, in
        // order; A's third is only in A. y is only in B.
        const Key a({{"x", "1", ""}, {"z", "9", ""}, {"x", "2", ""}, {"x", "3", ""}});
        const Key b({{"y", "7", ""}, {"x", "1", ""}, {"x", "5", ""}});
        const auto pairs = pairComponents(a.components, b.components);
        const std::vector<ComponentPair> expected{{-1, 0}, {0, 1}, {2, 2}, {1, -1}, {3, -1}};
        QCOMPARE(pairs, expected);
        const KeyDiff d = diffComponents(a.components, b.components);
        QCOMPARE(d.common, std::size_t(1)); // the first x
        QCOMPARE(d.componentsA, std::size_t(4));
        QCOMPARE(d.componentsB, std::size_t(3));
        // Rank order (all rank 0): changed, only in B, only in A (pairing order within each).
        QCOMPARE(d.changes.size(), std::size_t(4));
        QCOMPARE(int(d.changes[0].change), int(ChangeKind::Changed));
        QCOMPARE(d.changes[0].indexA, 2);
        QCOMPARE(d.changes[0].indexB, 2);
        QCOMPARE(d.changes[0].digestA, std::string("2"));
        QCOMPARE(d.changes[0].digestB, std::string("5"));
        QCOMPARE(int(d.changes[1].change), int(ChangeKind::OnlyB));
        QCOMPARE(d.changes[1].component, std::string("y"));
        QCOMPARE(int(d.changes[2].change), int(ChangeKind::OnlyA));
        QCOMPARE(d.changes[2].component, std::string("z"));
        QCOMPARE(int(d.changes[3].change), int(ChangeKind::OnlyA));
        QCOMPARE(d.changes[3].indexA, 3);
    }

    void digestsDecideElseTexts()
    {
        // Same text, different digests: changed. No digests: the texts decide.
        QVERIFY(!sameValue({"a", {}, "d1", "t"}, {"a", {}, "d2", "t"}));
        QVERIFY(sameValue({"a", {}, "d1", "t1"}, {"a", {}, "d1", "t2"}));
        QVERIFY(sameValue({"a", {}, {}, "t"}, {"a", {}, {}, "t"}));
        QVERIFY(!sameValue({"a", {}, {}, "t"}, {"a", {}, {}, "u"}));
        QVERIFY(!sameValue({"a", {}, "d", "t"}, {"a", {}, {}, "t"}));
    }

    void policyRanksDescribesAndOrders()
    {
        const Key a({{"b_opt", "1", "o=1"}, {"c_env", "2", "v1"}, {"d_in", "3", "i"}});
        const Key b({{"b_opt", "4", "o=2"}, {"c_env", "5", "v2"}, {"a_new", "6", "n"}});
        DiffPolicy p;
        p.rank = [](const ComponentChange& c) { return c.component == "c_env" ? 0 : 1; };
        p.describe = [](ComponentChange& c, const Component* x, const Component* y) {
            c.summary = std::string(x ? x->text : "-") + "|" + std::string(y ? y->text : "-");
            c.environment = c.component == "c_env";
        };
        const KeyDiff ranked = diffComponents(a.components, b.components, p);
        std::vector<std::string> order;
        for (const auto& c : ranked.changes) {
            order.push_back(c.component + ":" + std::to_string(c.rank) + ":" + c.summary);
        }
        QCOMPARE(order, (std::vector<std::string>{"c_env:0:v1|v2", "b_opt:1:o=1|o=2",
                                                  "a_new:1:-|n", "d_in:1:i|-"}));
        QVERIFY(!ranked.onlyEnvironment());
        p.order = ChangeOrder::Label;
        const KeyDiff byLabel = diffComponents(a.components, b.components, p);
        order.clear();
        for (const auto& c : byLabel.changes) {
            order.push_back(c.component);
        }
        QCOMPARE(order, (std::vector<std::string>{"a_new", "b_opt", "c_env", "d_in"}));
        const Key envA({{"c_env", "2", "v1"}});
        const Key envB({{"c_env", "5", "v2"}});
        QVERIFY(diffComponents(envA.components, envB.components, p).onlyEnvironment());
        QVERIFY(!diffComponents(envA.components, envA.components, p).onlyEnvironment());
    }

    void defaultDescriberNamesTheFirstDifferingField()
    {
        const Key a({{"input[0]", "1", "dtype=float32;sizes=[4,8];device=cpu"},
                     {"compiler", "2", "g++ -O2"}, {"gone", "3", "x"}});
        const Key b({{"input[0]", "4", "dtype=float32;sizes=[2,8];device=cpu"},
                     {"compiler", "5", "g++ -O3"}, {"new", "6", "y"}});
        const KeyDiff d = diffComponents(a.components, b.components);
        QCOMPARE(d.changes.size(), std::size_t(4));
        QCOMPARE(d.changes[0].field, std::string("sizes"));
        QCOMPARE(d.changes[0].a, std::string("[4,8]"));
        QCOMPARE(d.changes[0].b, std::string("[2,8]"));
        QCOMPARE(d.changes[0].summary, std::string("input[0] sizes [4,8] \u2192 [2,8]"));
        QCOMPARE(d.changes[1].field, std::string());
        QCOMPARE(d.changes[1].summary, std::string("compiler g++ -O2 \u2192 g++ -O3"));
        QCOMPARE(d.changes[2].summary, std::string("new added"));
        QCOMPARE(d.changes[3].summary, std::string("gone removed"));
    }

    void emptyKeys()
    {
        const Key a({{"x", "1", ""}});
        const Key none(std::vector<std::array<std::string, 3>>{});
        QVERIFY(diffComponents(none.components, none.components).empty());
        const KeyDiff d = diffComponents(a.components, none.components);
        QCOMPARE(d.changes.size(), std::size_t(1));
        QCOMPARE(int(d.changes[0].change), int(ChangeKind::OnlyA));
        QCOMPARE(d.common, std::size_t(0));
    }
};

QTEST_GUILESS_MAIN(TestComponentDiff)
#include "tst_component_diff.moc"

FXSCOPE_TEST_END
