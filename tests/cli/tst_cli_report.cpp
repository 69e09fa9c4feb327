// fxscope-cli report end to end: one self-contained HTML page (no script, nothing loaded from
// elsewhere) with the findings and what to do, the cache explanations and the largest Dynamo
// graph drawn; and --redact, proven on the recorded logs: every source line the logs carry
// (the `code:` of each graph's `# File:` comments, the graph breaks' user lines) and every path
// of the user's files is in the plain report and in none of the redacted ones.
#include "core/util/file_reader.h"
#include "core/util/strings.h"
#include "tests/cli/cli_runner.h"
#include "tests/test_file.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <regex>
#include <set>

FXSCOPE_TEST_BEGIN

using nlohmann::json;

namespace {

using fxs::test::runCli;

const QString kRecorded = QStringLiteral(FXSCOPE_TEST_DATA "/recorded/traces/");
const QString kClasses = QStringLiteral(FXSCOPE_TEST_DATA "/trace_classes/");

std::string readText(const QString& path)
{
    auto text = fxs::readFile(path.toStdString());
    return text ? *text : std::string();
}

// The user's source lines a log carries: "code: y = x.sin() * 2" after a graph's `# File:`
// comments and in graph-break records (JSON strings: their escapes undone for quotes).
std::set<std::string> sourceLines(const std::string& log)
{
    std::set<std::string> lines;
    static const std::regex code(R"(code: ([^\n\\]*(?:\\"[^\n\\]*)*))");
    for (auto it = std::sregex_iterator(log.begin(), log.end(), code); it != std::sregex_iterator();
         ++it) {
        std::string line = std::regex_replace((*it)[1].str(), std::regex(R"(\\")"), "\"");
        line = line.substr(0, line.find("\", "));
        while (!line.empty() && (line.back() == ' ' || line.back() == '"')) {
            line.pop_back();
        }
        if (line.size() >= 6) {
            lines.insert(line);
        }
    }
    return lines;
}

bool contains(const std::string& html, const std::string& text)
{
    return html.find(text) != std::string::npos ||
           html.find(fxs::escapeMarkup(text)) != std::string::npos;
}

} // namespace

class TestCliReport : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    // The report of one log, plain or redacted; the page's text.
    std::string report(const QString& log, bool redact, json* summary = nullptr)
    {
        const QString out = m_dir.filePath(redact ? "redacted.html" : "plain.html");
        QStringList args{"report", log, "-o", out};
        if (redact) {
            args << "--redact";
        }
        const auto r = runCli(args);
        if (r.exitCode != 0) {
            qWarning("report failed (%d): %s", r.exitCode, r.err.constData());
            return {};
        }
        if (summary) {
            *summary = json::parse(r.out.toStdString());
        }
        return readText(out);
    }

private Q_SLOTS:
    void aSelfContainedPage()
    {
        json summary;
        const std::string html = report(kRecorded + "recompile.log.gz", false, &summary);
        QVERIFY(html.rfind("<!DOCTYPE html>", 0) == 0);
        QCOMPARE(summary["findings"].get<int>(), 3);
        QCOMPARE(summary["redacted"].get<bool>(), false);
        QVERIFY(summary["graph_nodes"].get<int>() > 0);
        // Nothing runs and nothing is fetched: no script, no link, no source URL.
        for (const char* absent : {"<script", "<link", "src=", "href=\"http", "@import", "url("}) {
            QVERIFY2(html.find(absent) == std::string::npos, absent);
        }
        QVERIFY(contains(html, "Recompile 0/1: tensor 'x' size mismatch at index 0."));
        QVERIFY(contains(html, "torch._dynamo.mark_dynamic(x, 0)"));
        QVERIFY(contains(html, "miss: recompile (tensor 'x' size mismatch"));
        QVERIFY(html.find("<svg") != std::string::npos);
        QVERIFY(contains(html, "Dynamo graph 0/"));
    }

    void redactedReportsKeepNoSourceLineOrPath_data()
    {
        QTest::addColumn<QString>("log");
        QTest::newRow("recompile") << kRecorded + "recompile.log.gz";
        QTest::newRow("graph_break") << kRecorded + "graph_break.log.gz";
    }
    void redactedReportsKeepNoSourceLineOrPath()
    {
        QFETCH(QString, log);
        const std::set<std::string> lines = sourceLines(readText(log));
        QVERIFY2(!lines.empty(), "the log carries no source line to hide");
        const std::string plain = report(log, false);
        const std::string redacted = report(log, true);
        QVERIFY(!plain.empty() && !redacted.empty());
        // The plain report shows some of them (so the check below can fail) ...
        QVERIFY(std::any_of(lines.begin(), lines.end(),
                            [&](const std::string& l) { return contains(plain, l); }));
        // ... the redacted one none, nor a file path or name of the user's.
        for (const auto& line : lines) {
            QVERIFY2(!contains(redacted, line), line.c_str());
        }
        for (const char* path : {"/home/", "record.py", ".py:"}) {
            QVERIFY2(redacted.find(path) == std::string::npos, path);
        }
        QVERIFY(redacted.find("redacted: no source text, file paths or constant values") !=
                std::string::npos);
    }

    void redactionRemovesConstantValues()
    {
        const std::string plain = report(kRecorded + "recompile.log.gz", false);
        const std::string redacted = report(kRecorded + "recompile.log.gz", true);
        QVERIFY(contains(plain, "expected 8, actual 16"));
        QVERIFY(!contains(redacted, "expected 8, actual 16"));
        QVERIFY(contains(redacted, "expected [value], actual [value]"));
        // What happened is still said: the input, the compile ids, the remedy's call.
        QVERIFY(contains(redacted, "Recompile 0/1: tensor 'x' size mismatch"));
        QVERIFY(contains(redacted, "torch._dynamo.mark_dynamic(x, [value])"));
    }

    // A failed compile's exception message may quote anything: withheld when redacting.
    void failureReasonsAreWithheld()
    {
        const std::string plain = report(kClasses + "comp_failure.log", false);
        const std::string redacted = report(kClasses + "comp_failure.log", true);
        QVERIFY(contains(plain, "RuntimeError: broken backend"));
        QVERIFY(contains(plain, "broken_backend"));
        QVERIFY(!contains(redacted, "broken backend"));
        QVERIFY(contains(redacted, "BackendCompilerFailed"));
    }

    void unreadableRunAndBadOutput()
    {
        auto r = runCli({"report", m_dir.filePath("missing.log"), "-o", m_dir.filePath("x.html")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("fxscope-cli report: cannot read run"));
        QVERIFY(!QFile::exists(m_dir.filePath("x.html")));
        r = runCli({"report", kRecorded + "recompile.log.gz", "-o", m_dir.path()});
        QVERIFY(r.exitCode != 0); // a directory is refused before any work
    }
};

QTEST_GUILESS_MAIN(TestCliReport)
#include "tst_cli_report.moc"

FXSCOPE_TEST_END
