// Miss explanations: nearest entry by region identity, field-level component diff, headlines.
#include "core/cache/cache_explain.h"
#include "tests/test_file.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs::cache;

namespace {

EntryInfo entry(const KeyBuilder& kb, double compileMs = 0)
{
    EntryInfo e;
    e.key = kb.key();
    e.components = kb.components();
    e.regionDigest = regionDigest(e.components);
    e.compileMs = compileMs;
    return e;
}

KeyBuilder key(const std::string& region, const std::string& dtype, const std::string& flags)
{
    KeyBuilder kb;
    kb.add("region", region)
        .add("input[0]", "dtype=" + dtype + ";sizes=[4,8];strides=[8,1];device=cpu")
        .add("compiler", "/usr/bin/g++ 12.2.0 " + flags);
    return kb;
}

} // namespace

class TestCacheExplain : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void namesTheChangedInputField()
    {
        const auto stored = entry(key("v0 = sin(in0)", "float32", "-O3"));
        const auto wanted = key("v0 = sin(in0)", "float16", "-O3");
        const MissExplanation m = explainMiss(wanted.components(), {stored});
        QVERIFY(!m.cold);
        QVERIFY(m.sameRegion);
        QCOMPARE(m.nearestKey, stored.key);
        QCOMPARE(m.commonComponents, 2);
        QCOMPARE(m.changes.size(), std::size_t(1));
        QCOMPARE(m.changes[0].component, std::string("input[0]"));
        QCOMPARE(m.changes[0].field, std::string("dtype"));
        QCOMPARE(m.headline, std::string("miss: input 0 dtype float32 → float16"));
    }

    void prefersTheSameRegion()
    {
        // other shares compiler and input with wanted but is a different region; same differs
        // in two components yet has the wanted region: it is the nearest.
        const auto other = entry(key("v0 = cos(in0)", "float32", "-O3"));
        const auto same = entry(key("v0 = sin(in0)", "bfloat16", "-O2"));
        const auto wanted = key("v0 = sin(in0)", "float32", "-O3");
        const MissExplanation m = explainMiss(wanted.components(), {other, same});
        QCOMPARE(m.nearestKey, same.key);
        QCOMPARE(m.changes.size(), std::size_t(2));
        QCOMPARE(m.headline, std::string("miss: input 0 dtype bfloat16 → float32 (+1 more)"));
        QCOMPARE(describeChange(m.changes[0]), std::string("compiler /usr/bin/g++ 12.2.0 -O2 → "
                                                           "/usr/bin/g++ 12.2.0 -O3"));
    }

    void regionChangeAndCold()
    {
        const auto a = entry(key("v0 = sin(in0)\nreturn v0", "float32", "-O3"));
        const auto wanted = key("v0 = cos(in0)\nreturn v0", "float32", "-O3");
        const MissExplanation m = explainMiss(wanted.components(), {a});
        QVERIFY(!m.sameRegion);
        QCOMPARE(m.headline,
                 std::string("miss: region graph changed (line 1: v0 = sin(in0) → v0 = cos(in0))"));
        const MissExplanation cold = explainMiss(wanted.components(), {});
        QVERIFY(cold.cold);
        QCOMPARE(cold.headline, std::string("miss: cold (no cache entry to compare with)"));
    }

    void addedAndRemovedComponents()
    {
        KeyBuilder before;
        before.add("a", "1").add("b", "2");
        KeyBuilder after;
        after.add("b", "2").add("c", "3");
        const auto d = diffKeys(before.components(), after.components());
        QCOMPARE(d.size(), std::size_t(2));
        QCOMPARE(int(d[0].change), int(ChangeKind::OnlyA)); // removed: only in the stored entry
        QCOMPARE(d[0].component, std::string("a"));
        QCOMPARE(d[0].a, std::string("1"));
        QCOMPARE(int(d[1].change), int(ChangeKind::OnlyB)); // added: only in the wanted key
        QCOMPARE(d[1].b, std::string("3"));
        QCOMPARE(describeChange(d[1]), std::string("c added"));
        QCOMPARE(d[1].summary, std::string("c added"));
    }

    void hitSaysWhatItSaved()
    {
        EntryInfo e = entry(key("r", "float32", "-O3"), 412.4);
        e.hitCount = 2;
        QCOMPARE(hitHeadline(e), "hit: entry " + e.key.substr(0, 12) +
                                     " (verified, hit 3×, saves 412 ms of compile)");
    }
};

QTEST_GUILESS_MAIN(TestCacheExplain)
#include "tst_cache_explain.moc"

FXSCOPE_TEST_END
