// keydiff's headline maker: "<outcome>: <detail>", the leading change (first of the smallest
// rank, whatever the list's order) and both count styles.
#include "core/keydiff/headline.h"
#include "tests/test_file.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs::keydiff;

namespace {

ComponentChange change(const std::string& label, int rank)
{
    ComponentChange c;
    c.component = label;
    c.rank = rank;
    return c;
}

} // namespace

class TestKeydiffHeadline : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void outcomeWords()
    {
        QCOMPARE(headline(Outcome::Miss, "cold"), std::string("miss: cold"));
        QCOMPARE(headline(Outcome::Hit, "entry 1a2b"), std::string("hit: entry 1a2b"));
        QCOMPARE(headline(Outcome::Bypass, "x"), std::string("bypass: x"));
        QCOMPARE(headline(Outcome::Disabled, "x"), std::string("disabled: x"));
        QCOMPARE(headline(Outcome::Fallback, "x"), std::string("fallback: x"));
    }

    void leadingChangeIsTheFirstOfTheSmallestRank()
    {
        // A label-ordered list (the region cache's): compiler, input[0], input[1], region.
        const std::vector<ComponentChange> changes{change("compiler", 1), change("input[0]", 0),
                                                   change("input[1]", 0), change("region", 2)};
        QCOMPARE(leadingChange(changes)->component, std::string("input[0]"));
        QVERIFY(!leadingChange({}));
    }

    void countStyles()
    {
        QCOMPARE(countSuffix(1, 539, CountStyle::OfTotal), std::string(" (1 of 540 components)"));
        QCOMPARE(countSuffix(3, 0, CountStyle::PlusMore), std::string(" (+2 more)"));
        QCOMPARE(countSuffix(1, 7, CountStyle::PlusMore), std::string());
    }

    void changeDetailNamesTheLeadingChange()
    {
        KeyDiff d;
        d.changes = {change("compiler", 1), change("input[1]", 0)};
        d.common = 6;
        const auto phrase = [](const ComponentChange& c) { return c.component + " changed"; };
        QCOMPARE(changeDetail(d, phrase, CountStyle::PlusMore),
                 std::string("input[1] changed (+1 more)"));
        QCOMPARE(changeDetail(d, phrase, CountStyle::OfTotal),
                 std::string("input[1] changed (2 of 8 components)"));
        QCOMPARE(changeDetail(KeyDiff{}, phrase, CountStyle::OfTotal), std::string());
    }
};

QTEST_GUILESS_MAIN(TestKeydiffHeadline)
#include "tst_keydiff_headline.moc"

FXSCOPE_TEST_END
