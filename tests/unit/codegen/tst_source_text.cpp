// The emitter API every piece of generated source text goes through (source_text.h): identifiers
// are checked, comments and string literals cannot end early. Checked for real: a C++ program
// made of comment() lines and stringLiteral()s of every injection payload (tests/data/
// injection/names.txt) and random bytes is compiled with -trigraphs and run; it must print each
// payload's bytes exactly, and no payload may add code (the program defines nothing else).
#include "core/codegen/source_text.h"
#include "tests/test_file.h"
#include "tests/unit/codegen/injection_names.h"

#include <nlohmann/json.hpp>

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <limits>
#include <random>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::codegen;

namespace {

std::vector<std::string> payloads()
{
    std::vector<std::string> out = fxs::testing::injectionNames();
    std::mt19937_64 rng(31);
    for (int i = 0; i < 200; ++i) {
        std::string s(std::size_t(rng() % 40), '\0');
        for (char& c : s) {
            c = char(rng() % 256);
        }
        out.push_back(s);
    }
    return out;
}

// Runs `c++ -trigraphs` on source and the program it makes; its stdout, or nullopt when the
// compiler is missing (the caller skips). A failed build fails the test with the output.
std::optional<QByteArray> buildAndRun(const std::string& source, std::string& error)
{
    QTemporaryDir dir;
    QFile f(dir.path() + "/t.cpp");
    if (!f.open(QIODevice::WriteOnly)) {
        error = "cannot write the test program";
        return QByteArray();
    }
    f.write(source.data(), qint64(source.size()));
    f.close();
    QProcess cc;
    cc.setProcessChannelMode(QProcess::MergedChannels);
    cc.start(qEnvironmentVariable("FXSCOPE_CXX", "c++"),
             {"-std=c++20", "-trigraphs", "-Wall", dir.path() + "/t.cpp", "-o",
              dir.path() + "/t"});
    if (!cc.waitForStarted(30000)) {
        return std::nullopt;
    }
    if (!cc.waitForFinished(300000) || cc.exitCode() != 0) {
        error = "compiler failed: " + cc.readAll().toStdString();
        return QByteArray();
    }
    QProcess run;
    run.start(dir.path() + "/t", {});
    if (!run.waitForFinished(60000) || run.exitCode() != 0) {
        error = "the program failed";
        return QByteArray();
    }
    return run.readAllStandardOutput();
}

} // namespace

class TestSourceText : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void identifiersAreChecked()
    {
        for (const char* ok : {"kernel0", "fxs_region_entry", "_x", "a1_b2", "in0"}) {
            QVERIFY2(source::isIdentifier(ok), ok);
            QCOMPARE(source::identifier(ok), std::string(ok));
        }
        for (const char* bad : {"", "0abc", "a-b", "a b", "a\nb", "int", "return", "__x", "a__b",
                                "_X", "threadIdx", "caf\xc3\xa9", "a$b", "define", "main"}) {
            QVERIFY2(!source::isIdentifier(bad), bad);
        }
        QVERIFY(!source::isIdentifier(std::string(129, 'a')));
        for (const auto& p : payloads()) {
            const std::string id = source::identifier(p);
            QVERIFY(source::isIdentifier(id));
            QCOMPARE(source::identifier(p), id); // stable
        }
        QVERIFY(source::identifier("a b") != source::identifier("a  b"));
    }

    void commentsAreOneSafeLine()
    {
        for (const auto& p : payloads()) {
            const std::string c = source::comment(p);
            QVERIFY(c.starts_with("// "));
            QCOMPARE(std::count(c.begin(), c.end(), '\n'), std::ptrdiff_t(1));
            QVERIFY(c.back() == '\n');
            QVERIFY(c.find("*/") == std::string::npos && c.find("??") == std::string::npos);
            QVERIFY(!source::sourceProblem(c));
        }
        QCOMPARE(source::comment("kernel0: covers FX nodes v1, v2"),
                 std::string("// kernel0: covers FX nodes v1, v2\n"));
        QCOMPARE(source::escapeText("a\nb\\"), std::string("a\\012b\\134"));
        QCOMPARE(source::escapeText(std::string(300, 'a')).size(), std::size_t(256 + 3));
    }

    void integerLiteralsCoverInt64()
    {
        QCOMPARE(source::intLiteral(3), std::string("INT64_C(3)"));
        QCOMPARE(source::intLiteral(std::numeric_limits<std::int64_t>::min()),
                 std::string("(-INT64_C(9223372036854775807) - 1)"));
        QCOMPARE(source::saturatingInt(1e300), std::numeric_limits<std::int64_t>::max());
        QCOMPARE(source::saturatingInt(-1e300), std::numeric_limits<std::int64_t>::min());
        QCOMPARE(source::saturatingInt(9223372036854775808.0),
                 std::numeric_limits<std::int64_t>::max());
        QCOMPARE(source::saturatingInt(std::nan("")), std::int64_t(0));
        QCOMPARE(source::saturatingInt(-2.9), std::int64_t(-2));
    }

    void sourceCheckFindsBreakouts()
    {
        QVERIFY(!source::sourceProblem("int x;\n\t// ok\n"));
        QVERIFY(source::sourceProblem("a\\\nb"));
        QVERIFY(source::sourceProblem("?\?/"));
        QVERIFY(source::sourceProblem("caf\xc3\xa9"));
        QVERIFY(source::sourceProblem(std::string("a\0b", 3)));
        QVERIFY(source::sourceProblem("a\rb"));
    }

    void compiledProgramPrintsEveryPayloadExactly()
    {
        const auto ps = payloads();
        std::string src = "#include <stdint.h>\n#include <stdio.h>\n";
        std::string expected;
        src += "static const char* const kText[] = {\n";
        for (std::size_t i = 0; i < ps.size(); ++i) {
            src += source::comment(ps[i]);
            src += "    " + source::stringLiteral(ps[i]) + ",\n";
        }
        src += "};\nstatic const unsigned long kSize[] = {\n";
        for (const auto& p : ps) {
            src += "    sizeof(" + source::stringLiteral(p) + ") - 1,\n";
            expected += p;
        }
        src += "};\nstatic const int64_t kInts[] = {" +
               source::intLiteral(std::numeric_limits<std::int64_t>::min()) + ", " +
               source::intLiteral(std::numeric_limits<std::int64_t>::max()) + "};\n";
        src += "int main()\n{\n"
               "    for (unsigned long i = 0; i < sizeof kText / sizeof kText[0]; ++i) {\n"
               "        fwrite(kText[i], 1, kSize[i], stdout);\n    }\n"
               "    printf(\"|%lld|%lld\", (long long)kInts[0], (long long)kInts[1]);\n"
               "    return 0;\n}\n";
        QVERIFY(!source::sourceProblem(src));
        expected += "|-9223372036854775808|9223372036854775807";
        std::string error;
        const auto out = buildAndRun(src, error);
        if (!out) {
            QSKIP("no C++ compiler");
        }
        QVERIFY2(error.empty(), error.c_str());
        QCOMPARE(out->size(), qsizetype(expected.size()));
        QVERIFY(*out == QByteArray(expected.data(), qsizetype(expected.size())));
    }
};

QTEST_GUILESS_MAIN(TestSourceText)
#include "tst_source_text.moc"

FXSCOPE_TEST_END
