// What LibTorch's recursion cannot survive and the bracket check alone did not see (issue 31):
// 20,000-long `- - -`, `not`, `+` and `**` chains in a module's code, and pickles nested
// 200,000 deep (made directly, or top-down through the memo). Each made here from mlp.pt and
// loaded for real: a Parse error naming the entry, never a crash. Code and pickles as torch
// writes them still load.
#include "core/torchscript/code_nesting.h"
#include "core/util/pickle_scan.h"
#include "core/torchscript/torchscript_loader.h"
#include "tests/test_file.h"
#include "tests/unit/torchscript/nested_code_archive.h"

#include <QtTest>

#include <string_view>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace std::string_view_literals;

namespace {

const std::string kDir = FXSCOPE_TEST_DATA "/torchscript/";

std::string repeat(std::string_view s, int n)
{
    std::string out;
    out.reserve(s.size() * static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        out += s;
    }
    return out;
}

// mlp.pt with `return _0` in its forward replaced by `return <value>`.
Result<model::GraphArtifact> loadWithReturn(const QTemporaryDir& dir,
                                                     const std::string& value)
{
    const std::string path = dir.filePath("chain.pt").toStdString();
    const std::string entry =
        test::writeEditedEntry(kDir + "mlp.pt", path, "/code/__torch__.py", [&](std::string& c) {
            const auto at = c.find("return _0");
            return at != std::string::npos && c.replace(at, 9, "return " + value).size() > 0;
        });
    if (entry != "mlp/code/__torch__.py") {
        return makeError(ErrorCode::Internal, "could not edit mlp.pt");
    }
    Diagnostics diagnostics;
    return torchscript::loadTorchScriptGraph(path, diagnostics);
}

// mlp.pt with its data.pkl replaced by `pickle`.
Result<model::GraphArtifact> loadWithDataPickle(const QTemporaryDir& dir,
                                                         const std::string& pickle)
{
    const std::string path = dir.filePath("deep.pt").toStdString();
    const std::string entry =
        test::writeEditedEntry(kDir + "mlp.pt", path, "/data.pkl", [&](std::string& pkl) {
            pkl = pickle;
            return true;
        });
    if (entry != "mlp/data.pkl") {
        return makeError(ErrorCode::Internal, "could not edit mlp.pt");
    }
    Diagnostics diagnostics;
    return torchscript::loadTorchScriptGraph(path, diagnostics);
}

// A 4-byte little-endian argument (LONG_BINPUT, LONG_BINGET).
std::string le32(std::uint32_t v)
{
    std::string s(4, '\0');
    for (int i = 0; i < 4; ++i) {
        s[static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
    }
    return s;
}

// `depth` tuples inside each other: () then TUPLE1 again and again.
std::string nestedTuples(int depth)
{
    return "\x80\x02)" + std::string(static_cast<std::size_t>(depth), '\x85') + ".";
}

// Lists nested top-down: each new list is appended to the one fetched back from the memo, so no
// value on the stack ever holds more than one level when it is made.
std::string nestedThroughMemo(int depth)
{
    std::string p = "\x80\x02]r" + le32(0);
    for (int i = 0; i < depth; ++i) {
        p += "j" + le32(static_cast<std::uint32_t>(i)) + "]r" +
             le32(static_cast<std::uint32_t>(i + 1)) + "a0";
    }
    return p + "j" + le32(0) + ".";
}

} // namespace

class TestTorchScriptDepth : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void operatorChainsAreMeasured()
    {
        using torchscript::DeepNesting;
        using torchscript::findDeepNesting;
        const auto unary = findDeepNesting("a = 1\nx = " + repeat("- ", 600) + "y\n");
        QVERIFY(unary);
        QCOMPARE(unary->kind, DeepNesting::Kind::Operators);
        QCOMPARE(unary->line, 2);
        QCOMPARE(unary->depth, 600);
        QCOMPARE(findDeepNesting("x = " + repeat("not ", 600) + "y")->depth, 600);
        QCOMPARE(findDeepNesting("x = y" + repeat(" + y", 600))->depth, 600);
        QCOMPARE(findDeepNesting("x = y" + repeat(" ** y", 300))->depth, 600); // 2 per `**`
        QCOMPARE(findDeepNesting("x = y" + repeat(".y", 600))->depth, 600);
        QCOMPARE(findDeepNesting("x = f" + repeat("(y)", 600))->depth, 601); // calls chain
        // Brackets and the chains on the way in add up: 200 levels of `- - (`.
        const auto mixed =
            findDeepNesting("x = " + repeat("- - (", 200) + "y" + repeat(")", 200));
        QVERIFY(mixed);
        QCOMPARE(mixed->kind, DeepNesting::Kind::Operators);
        QCOMPARE(mixed->depth, 600);
        // Siblings do not chain: `,` `:` `=` `;` and new statements start again.
        QVERIFY(!findDeepNesting("x = [" + repeat("-1, ", 100000) + "]"));
        QVERIFY(!findDeepNesting("x = {" + repeat("-1: -2, ", 100000) + "}"));
        QVERIFY(!findDeepNesting(repeat("x = -a - b\n", 100000)));
        QVERIFY(!findDeepNesting(repeat("x = -a; ", 100000)));
        QVERIFY(!findDeepNesting("f(" + repeat("k = -1, ", 100000) + ")"));
        // Numbers with exponents, strings and comments are one token or nothing.
        QVERIFY(!findDeepNesting("x = [" + repeat("1e-05, ", 100000) + "]"));
        QVERIFY(!findDeepNesting("s = \"" + repeat("- ", 1000) + "\"  # " + repeat("- ", 1000)));
        // The bracket cap is reported as before when both are past.
        const auto both = findDeepNesting(std::string(300, '(') + repeat("-", 600));
        QCOMPARE(both->kind, DeepNesting::Kind::Brackets);
        QCOMPARE(both->depth, 300);
    }

    void chainsInModuleCodeAreAParseError_data()
    {
        QTest::addColumn<QString>("value");
        QTest::addColumn<int>("depth");
        // 20,000-long chains of each kind the issue found crashing LibTorch's parser.
        QTest::newRow("minus") << QString::fromStdString(repeat("- ", 20000) + "_0") << 20000;
        QTest::newRow("not") << QString::fromStdString(repeat("not ", 20000) + "_0") << 20000;
        QTest::newRow("plus") << QString::fromStdString("_0" + repeat(" + _0", 20000)) << 20000;
        QTest::newRow("power") << QString::fromStdString("_0" + repeat(" ** _0", 20000)) << 40000;
    }
    void chainsInModuleCodeAreAParseError()
    {
        QFETCH(QString, value);
        QFETCH(int, depth);
        QTemporaryDir dir;
        const auto r = loadWithReturn(dir, value.toStdString());
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::Parse);
        const std::string at = "/chain.pt!mlp/code/__torch__.py:14";
        QVERIFY2(r.error().where.size() > at.size() &&
                     r.error().where.substr(r.error().where.size() - at.size()) == at,
                 r.error().where.c_str());
        QCOMPARE(r.error().message, "operators chain " + std::to_string(depth) +
                                        " deep (more than 512) at mlp/code/__torch__.py:14");
    }

    void shortChainsStillLoad()
    {
        QTemporaryDir dir;
        const auto r = loadWithReturn(dir, repeat("- ", 100) + "_0");
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
        int negations = 0;
        for (const auto& node : r->graph->nodes()) {
            negations += node.target.rfind("aten::neg", 0) == 0 ? 1 : 0;
        }
        QCOMPARE(negations, 100);
    }

    void deepPicklesAreFound()
    {
        using Kind = fxs::PickleFaultKind;
        using fxs::findPickleFault;
        const auto tuples = findPickleFault(nestedTuples(200000));
        QVERIFY(tuples);
        QCOMPARE(tuples->kind, Kind::TooDeep);
        QCOMPARE(tuples->declared, std::uint64_t(200001));
        QCOMPARE(tuples->offset, std::size_t(200002)); // the last TUPLE1 makes the outermost
        QCOMPARE(fxs::describe(*tuples),
                 std::string("opcode 0x85 at byte 200002 starts values nested 200001 deep "
                             "(more than 1000)"));
        const auto memo = findPickleFault(nestedThroughMemo(200000));
        QVERIFY(memo);
        QCOMPARE(memo->kind, Kind::TooDeep);
        QCOMPARE(memo->declared, std::uint64_t(200001));
        QCOMPARE(memo->offset, std::size_t(2)); // the first list holds all the others
        // Lists and dicts inside each other through MARK: 200,000 `(]` ... `e` pairs.
        std::string marks = "\x80\x02";
        for (int i = 0; i < 200000; ++i) {
            marks += "](";
        }
        marks += std::string(200000, 'e') + ".";
        QCOMPARE(findPickleFault(marks)->kind, Kind::TooDeep);
        // At the cap, and a list that holds itself (a cycle, as Python writes one), pass.
        QVERIFY(!findPickleFault(nestedTuples(int(fxs::kMaxPickleDepth) - 1)));
        QVERIFY(findPickleFault(nestedTuples(int(fxs::kMaxPickleDepth))));
        QVERIFY(!findPickleFault("\x80\x02]q\x00h\x00" "a."sv)); // `\x00a` would be one byte
        QVERIFY(!findPickleFault(nestedThroughMemo(900)));
    }

    void deepPickleInAnArchiveIsAParseError_data()
    {
        QTest::addColumn<QByteArray>("pickle");
        QTest::addColumn<QString>("message");
        const std::string tuples = nestedTuples(200000);
        QTest::newRow("tuples") << QByteArray(tuples.data(), qsizetype(tuples.size()))
                                << "pickle mlp/data.pkl: opcode 0x85 at byte 200002 starts "
                                   "values nested 200001 deep (more than 1000)";
        const std::string memo = nestedThroughMemo(200000);
        QTest::newRow("through the memo")
            << QByteArray(memo.data(), qsizetype(memo.size()))
            << "pickle mlp/data.pkl: opcode 0x5d at byte 2 starts values nested 200001 deep "
               "(more than 1000)";
    }
    void deepPickleInAnArchiveIsAParseError()
    {
        QFETCH(QByteArray, pickle);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const auto r = loadWithDataPickle(dir, pickle.toStdString());
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::Parse);
        QCOMPARE(QString::fromStdString(r.error().message), message);
    }
};

QTEST_GUILESS_MAIN(TestTorchScriptDepth)
#include "tst_torchscript_depth.moc"

FXSCOPE_TEST_END
