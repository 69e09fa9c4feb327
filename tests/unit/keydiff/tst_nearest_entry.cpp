// keydiff's nearest entry: the fewest differing components, then the fewest differing fields,
// ties to the most recent (then the first listed); distances counted on the k-th-occurrence
// pairing.
#include "core/keydiff/nearest_entry.h"
#include "tests/test_file.h"

#include <QtTest>

#include <deque>
#include <string>
#include <vector>

FXSCOPE_TEST_BEGIN

using namespace fxs::keydiff;

namespace {

// Region-cache-like keys: label → text, the digest being the text itself. A deque keeps the
// strings where the views point.
class Keys {
public:
    std::vector<Component> key(std::vector<std::pair<std::string, std::string>> rows)
    {
        std::vector<Component> out;
        for (auto& [label, text] : rows) {
            const std::string& l = m_strings.emplace_back(label);
            const std::string& t = m_strings.emplace_back(text);
            out.push_back({l, {}, t, t});
        }
        return out;
    }

private:
    std::deque<std::string> m_strings;
};

std::string meta(const std::string& dtype, const std::string& n)
{
    return "dtype=" + dtype + ";sizes=[" + n + "];strides=[1];device=cpu";
}

} // namespace

class TestNearestEntry : public QObject {
    Q_OBJECT

private:
    Keys m_keys;

    std::vector<Component> chain(const std::string& dtype, const std::string& n,
                                 const std::string& flags = "-O3")
    {
        return m_keys.key({{"compiler", "g++ " + flags},
                           {"input[0]", meta(dtype, n)},
                           {"input[1]", meta(dtype, n)},
                           {"region", "v0 = sin(in0)\nv1 = mul(v0, in1)"}});
    }

private Q_SLOTS:
    void distanceCountsComponentsThenFields()
    {
        const auto f32big = chain("float32", "16777216");
        const auto f64big = chain("float64", "16777216");
        const auto f32small = chain("float32", "1048576");
        const Distance sizes = distance(f32big, f32small);
        QCOMPARE(sizes.components, std::size_t(2)); // input[0], input[1]
        QCOMPARE(sizes.fields, std::size_t(2));     // sizes, sizes
        QCOMPARE(sizes.common, std::size_t(2));
        const Distance both = distance(f64big, f32small);
        QCOMPARE(both.components, std::size_t(2));
        QCOMPARE(both.fields, std::size_t(4)); // dtype and sizes of each
        QVERIFY(sizes < both);
        // Only-in components count one each; a component count outranks any field count.
        const auto extra = m_keys.key({{"compiler", "g++ -O3"},
                                       {"input[0]", meta("float64", "1")},
                                       {"input[1]", meta("float64", "1")},
                                       {"region", "v0 = sin(in0)\nv1 = mul(v0, in1)"},
                                       {"schedule", "gen v0 v1"}});
        const Distance more = distance(extra, f32small);
        QCOMPARE(more.components, std::size_t(3));
        QVERIFY(both < more);
    }

    void fewestDifferingComponentsWins()
    {
        // The region cache's defect: f32 16M cached, then f64 16M (more recent); f32 1M is
        // wanted. Both entries differ in the two input components, but the f32 one only in
        // their sizes: it is the nearest although the f64 one is newer.
        const auto f32big = chain("float32", "16777216");
        const auto f64big = chain("float64", "16777216");
        const auto wanted = chain("float32", "1048576");
        const std::vector<Candidate> byRecency{{f64big, 2000}, {f32big, 1000}};
        const Nearest n = nearestEntry(wanted, byRecency);
        QCOMPARE(n.index, std::optional<std::size_t>(1));
        QCOMPARE(n.distance.components, std::size_t(2));
        QCOMPARE(n.distance.fields, std::size_t(2));
        // One differing component beats two, whatever the fields.
        const auto flags = chain("float32", "1048576", "-O2");
        const std::vector<Candidate> withFlags{{f32big, 3000}, {flags, 1}};
        QCOMPARE(nearestEntry(wanted, withFlags).index, std::optional<std::size_t>(1));
    }

    void tiesGoToTheMostRecent()
    {
        const auto wanted = chain("float32", "8");
        const auto a = chain("float32", "4");
        const auto b = chain("float32", "2");
        QCOMPARE(nearestEntry(wanted, std::vector<Candidate>{{a, 10}, {b, 20}}).index,
                 std::optional<std::size_t>(1));
        QCOMPARE(nearestEntry(wanted, std::vector<Candidate>{{a, 30}, {b, 20}}).index,
                 std::optional<std::size_t>(0));
        // Equal recency: the first listed.
        QCOMPARE(nearestEntry(wanted, std::vector<Candidate>{{b, 5}, {a, 5}}).index,
                 std::optional<std::size_t>(0));
        // An exact match is nearest whatever its age.
        QCOMPARE(nearestEntry(wanted, std::vector<Candidate>{{a, 99}, {wanted, 0}}).index,
                 std::optional<std::size_t>(1));
    }

    void noCandidates()
    {
        const auto wanted = chain("float32", "8");
        const Nearest n = nearestEntry(wanted, std::vector<Candidate>{});
        QVERIFY(!n.index);
    }

    void repeatedLabelsPairInOrder()
    {
        // Two components labelled "x": each pairs with its counterpart, so swapping their
        // order on one side makes both differ.
        const auto a = m_keys.key({{"x", "1"}, {"x", "2"}});
        const auto b = m_keys.key({{"x", "2"}, {"x", "1"}});
        QCOMPARE(distance(a, a).components, std::size_t(0));
        QCOMPARE(distance(a, b).components, std::size_t(2));
        const auto c = m_keys.key({{"x", "1"}});
        const Distance d = distance(a, c);
        QCOMPARE(d.components, std::size_t(1)); // the second x is only in A
        QCOMPARE(d.common, std::size_t(1));
    }
};

QTEST_GUILESS_MAIN(TestNearestEntry)
#include "tst_nearest_entry.moc"

FXSCOPE_TEST_END
