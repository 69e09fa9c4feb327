// The one size-expression evaluator (core/util/int_expr.h) and its checked arithmetic
// (checked_int.h): Python's floor division and modulo, every trap and overflow an error that
// names the operation (INT64_MIN // -1 was a SIGFPE), nesting capped (100,000 parentheses were
// a stack overflow), literals outside int64 named (they failed with the bare message "stoll").
#include "core/util/checked_int.h"
#include "core/util/int_expr.h"
#include "core/util/nesting.h"
#include "tests/test_file.h"

#include <QtTest>

#include <map>

FXSCOPE_TEST_BEGIN

using namespace fxs;

namespace {

const std::map<std::string, std::int64_t, std::less<>> kSizes = {{"s0", 8}, {"s1", 3}};

Result<std::int64_t> eval(std::string_view expr)
{
    return evalIntExpr(expr, [](std::string_view name) -> std::optional<std::int64_t> {
        const auto it = kSizes.find(name);
        return it == kSizes.end() ? std::nullopt : std::optional(it->second);
    });
}

std::string message(std::string_view expr)
{
    const auto r = eval(expr);
    return r.ok() ? "ok: " + std::to_string(*r) : r.error().message;
}

} // namespace

class TestIntExpr : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void pythonIntegerRules_data()
    {
        QTest::addColumn<QString>("expr");
        QTest::addColumn<qlonglong>("value");
        // Values as Python 3 prints them.
        QTest::newRow("symbol") << "s0" << 8LL;
        QTest::newRow("sum") << "2*s0 + 1" << 17LL;
        QTest::newRow("floor") << "(s0 - 1)//2 + 1" << 4LL;
        QTest::newRow("floor negative") << "-7 // 2" << -4LL;
        QTest::newRow("floor negative divisor") << "7 // -2" << -4LL;
        QTest::newRow("slash floors too") << "-7 / 2" << -4LL;
        QTest::newRow("mod") << "-7 % 3" << 2LL;
        QTest::newRow("mod negative divisor") << "7 % -3" << -2LL;
        QTest::newRow("min mod -1") << "(-9223372036854775807 - 1) % -1" << 0LL;
        QTest::newRow("power") << "s1**2 * 2" << 18LL;
        QTest::newRow("power right assoc") << "2**3**2" << 512LL;
        QTest::newRow("minus binds under power") << "-2**2" << -4LL;
        QTest::newRow("int64 min literal") << "-9223372036854775808" << qlonglong(INT64_MIN);
        QTest::newRow("max") << "9223372036854775807" << qlonglong(INT64_MAX);
        QTest::newRow("signs") << "- - + -s0" << -8LL;
        QTest::newRow("spaces") << " ( s0 ) " << 8LL;
    }
    void pythonIntegerRules()
    {
        QFETCH(QString, expr);
        QFETCH(qlonglong, value);
        const auto r = eval(expr.toStdString());
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
        QCOMPARE(qlonglong(*r), value);
    }

    void trapsAndOverflowsAreErrors_data()
    {
        QTest::addColumn<QString>("expr");
        QTest::addColumn<QString>("error");
        QTest::newRow("min // -1 (was SIGFPE)")
            << "(-9223372036854775807 - 1) // -1"
            << "size expression overflows int64 at `-9223372036854775808 // -1`";
        QTest::newRow("min / -1") << "-9223372036854775808 / -1"
                                  << "size expression overflows int64 at "
                                     "`-9223372036854775808 / -1`";
        QTest::newRow("div by zero") << "s0 // (s1 - 3)" << "division by zero at `8 // 0`";
        QTest::newRow("mod by zero") << "s0 % 0" << "division by zero at `8 % 0`";
        QTest::newRow("mul") << "4294967296 * 4294967296"
                             << "size expression overflows int64 at `4294967296 * 4294967296`";
        QTest::newRow("add") << "9223372036854775807 + 1"
                             << "size expression overflows int64 at `9223372036854775807 + 1`";
        QTest::newRow("sub") << "-9223372036854775807 - 2"
                             << "size expression overflows int64 at `-9223372036854775807 - 2`";
        QTest::newRow("neg") << "-(-9223372036854775807 - 1)"
                             << "size expression overflows int64 at `0 - -9223372036854775808`";
        QTest::newRow("pow") << "2**63" << "size expression overflows int64 at `2 ** 63`";
        QTest::newRow("neg exponent") << "2**-1" << "negative exponent at `2 ** -1`";
        QTest::newRow("huge literal (was: stoll)")
            << "99999999999999999999 + s0"
            << "integer literal 99999999999999999999 out of range (int64)";
        QTest::newRow("unknown symbol") << "s9 + 1"
                                        << "no value for symbolic size 's9' (give --size s9=N)";
        QTest::newRow("unbalanced") << "(s0 + 1" << "missing ')'";
        QTest::newRow("junk") << "s0 $ 1" << "unexpected text at `$ 1`";
        QTest::newRow("empty") << "" << "expected a number or a symbol";
    }
    void trapsAndOverflowsAreErrors()
    {
        QFETCH(QString, expr);
        QFETCH(QString, error);
        const auto r = eval(expr.toStdString());
        QVERIFY(!r.ok());
        QCOMPARE(QString::fromStdString(r.error().message), error);
        QCOMPARE(r.error().code, ErrorCode::Invalid);
        QCOMPARE(QString::fromStdString(r.error().found), expr); // the whole expression
    }

    void nestingIsCapped()
    {
        // 100,000 parentheses, signs and powers: an error, never a stack overflow.
        const std::string deep = std::string(100000, '(') + "s0" + std::string(100000, ')');
        QCOMPARE(message(deep), std::string("size expression nested deeper than 200 levels"));
        std::string signs;
        for (int i = 0; i < 100000; ++i) {
            signs += "- ";
        }
        QCOMPARE(message(signs + "s0"),
                 std::string("size expression nested deeper than 200 levels"));
        std::string powers = "1";
        for (int i = 0; i < 100000; ++i) {
            powers += "**1";
        }
        QCOMPARE(message(powers), std::string("size expression nested deeper than 200 levels"));
        // At the cap it still evaluates.
        const int cap = kMaxNesting;
        QCOMPARE(message(std::string(cap, '(') + "s0" + std::string(cap, ')')),
                 std::string("ok: 8"));
        // Long flat sums are not nesting.
        std::string flat = "0";
        for (int i = 0; i < 100000; ++i) {
            flat += " + 1";
        }
        QCOMPARE(message(flat), std::string("ok: 100000"));
    }

    void literals()
    {
        QCOMPARE(*parseIntLiteral(" 42 "), std::int64_t(42));
        QCOMPARE(*parseIntLiteral("-9223372036854775808"), INT64_MIN);
        QCOMPARE(*parseIntLiteral("+7"), std::int64_t(7));
        const auto huge = parseIntLiteral("99999999999999999999");
        QVERIFY(!huge.ok());
        QCOMPARE(huge.error().message,
                 std::string("integer literal 99999999999999999999 out of range (int64)"));
        QCOMPARE(parseIntLiteral("8abc").error().message, std::string("not an integer"));
        QCOMPARE(parseIntLiteral("").error().message, std::string("not an integer"));
        QCOMPARE(parseIntLiteral("-").error().message, std::string("not an integer"));
    }

    void checkedArithmetic()
    {
        QVERIFY(!checkedFloorDiv(INT64_MIN, -1).ok());
        QCOMPARE(checkedMod(INT64_MIN, -1).value, std::int64_t(0));
        QCOMPARE(checkedFloorDiv(INT64_MIN, 1).value, INT64_MIN);
        QCOMPARE(checkedFloorDiv(-1, INT64_MAX).value, std::int64_t(-1));
        QCOMPARE(checkedMod(-1, INT64_MAX).value, INT64_MAX - 1);
        QCOMPARE(checkedPow(-2, 63).value, INT64_MIN);
        QVERIFY(!checkedPow(2, 63).ok());
        QCOMPARE(checkedPow(1, INT64_MAX).value, std::int64_t(1));
        QCOMPARE(checkedPow(0, 0).value, std::int64_t(1));
        QVERIFY(checkedFloorDiv(5, 0).fault == IntFault::DivisionByZero);
    }
};

QTEST_GUILESS_MAIN(TestIntExpr)
#include "tst_int_expr.moc"

FXSCOPE_TEST_END
