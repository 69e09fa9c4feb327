// The one JSON reader (core/util/json_parse.h): nesting past kMaxNesting refused with the byte
// where it happens (100,000 levels made here, never a crash), brackets inside strings and
// escaped quotes not counted, invalid text reported with its byte, and the discarded variants
// callers that only ask "is it JSON?" use.
#include "core/util/json_parse.h"
#include "tests/test_file.h"

#include <QtTest>

#include <nlohmann/json.hpp>

FXSCOPE_TEST_BEGIN

using namespace fxs;

namespace {

std::string nested(int depth, char open = '[', char close = ']', std::string_view inner = "1")
{
    return std::string(static_cast<std::size_t>(depth), open) + std::string(inner) +
           std::string(static_cast<std::size_t>(depth), close);
}

} // namespace

class TestJsonParse : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void hundredThousandLevelsAreRefusedWithTheByte()
    {
        const auto r = parseJson(nested(100000));
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::Parse);
        // The 201st '[' is byte 200.
        QCOMPARE(r.error().message, std::string("JSON nested deeper than 200 levels at byte 200"));
        QVERIFY(parseJsonOrDiscarded(nested(100000)).is_discarded());
        QVERIFY(parseOrderedJsonOrDiscarded(nested(100000)).is_discarded());
        QVERIFY(!parseOrderedJson(nested(100000)).ok());
        // Objects count the same as arrays; the offset is where the nesting goes past the cap.
        std::string objects;
        for (int i = 0; i < 50000; ++i) {
            objects += "{\"k\": ";
        }
        const auto o = parseJson(objects);
        QVERIFY(!o.ok());
        QCOMPARE(o.error().message,
                 std::string("JSON nested deeper than 200 levels at byte ") +
                     std::to_string(200 * 6));
    }

    void theCapIsInclusive()
    {
        const auto atCap = parseJson(nested(kMaxNesting));
        QVERIFY2(atCap.ok(), atCap.ok() ? "" : atCap.error().toString().c_str());
        QCOMPARE(kMaxNesting, 200); // the graph-code parser's cap (io/py_expr.h) is the same
        QVERIFY(!parseJson(nested(kMaxNesting + 1)).ok());
        QVERIFY(!parseJson(nested(11), JsonLimits{10}).ok());
        QVERIFY(parseJson(nested(10), JsonLimits{10}).ok());
    }

    void bracketsInStringsDoNotCount()
    {
        const std::string brackets(100000, '[');
        const std::string text = "{\"a\": \"" + brackets + "\", \"b\": \"\\\"" + brackets +
                                 "\", \"c\": [\"\\\\\", [1]]}";
        const auto r = parseJson(text);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
        QCOMPARE((*r)["a"].get<std::string>().size(), brackets.size());
        QCOMPARE((*r)["c"][1][0].get<int>(), 1);
        // An escaped backslash ends before the quote: the brackets after it count again.
        QCOMPARE(findDeepJsonNesting("[\"\\\\\", [[1]]]", 2).value_or(0), std::size_t(8));
        QVERIFY(!findDeepJsonNesting("[\"\\\"[[[\", [1]]", 2));
        // Runs of backslashes before a quote: an odd run escapes it, an even one does not.
        QVERIFY(!findDeepJsonNesting("[\"\\\\\\\"[[[\", [1]]", 2));        // ["\\\"[[[", [1]]
        QCOMPARE(findDeepJsonNesting("[\"\\\\\\\\\", [[1]]]", 2).value_or(0), // ["\\\\", [[1]]]
                 std::size_t(10));
        QVERIFY(!findDeepJsonNesting("[\"[[[", 2)); // an unterminated string: nothing after it
        // Stray closers never take the depth below zero.
        QCOMPARE(findDeepJsonNesting("]]]]]][[[", 2).value_or(0), std::size_t(8));
    }

    void invalidJsonNamesTheByte()
    {
        const auto r = parseJson("{\"a\": [1, 2,, 3]}");
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::Parse);
        QCOMPARE(r.error().message, std::string("not valid JSON (byte 13)"));
        QVERIFY(!r.error().found.empty());
        QVERIFY(parseJsonOrDiscarded("{oops").is_discarded());
        QVERIFY(!parseJson("").ok());
        // validateJson: parseJson's errors without a value.
        const auto v = validateJson("{\"a\": [1, 2,, 3]}");
        QVERIFY(!v.ok());
        QCOMPARE(v.error().message, std::string("not valid JSON (byte 13)"));
        QVERIFY(validateJson("{\"a\": [1, 2, 3]}").ok());
        QCOMPARE(validateJson(std::string(300, '[')).error().message,
                 std::string("JSON nested deeper than 200 levels at byte 200"));
        const auto ordered = parseOrderedJson("{\"z\": 1, \"a\": 2}");
        QVERIFY(ordered.ok());
        QCOMPARE(ordered->begin().key(), std::string("z")); // order kept
    }
};

QTEST_GUILESS_MAIN(TestJsonParse)
#include "tst_json_parse.moc"

FXSCOPE_TEST_END
