// The report's text rules by hand-made examples: what --redact keeps (words, identifiers,
// compile ids, punctuation) and what it replaces (quoted code and text, paths, file names,
// numbers); HTML escaping of every input text, in the page too.
#include "core/report/redact.h"
#include "core/report/report.h"
#include "core/util/strings.h"
#include "tests/test_file.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using fxs::escapeMarkup;
using fxs::report::redactText;

class TestReport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void redactsValuesPathsAndCode()
    {
        QCOMPARE(redactText("tensor 'x' size mismatch at index 0. expected 8, actual 16"),
                 std::string("tensor 'x' size mismatch at index [value]. expected [value], "
                             "actual [value]"));
        QCOMPARE(redactText("Graph break at `print(\"step\")`; splits 0/0 | 1/0"),
                 std::string("Graph break at `[code]`; splits 0/0 | 1/0"));
        QCOMPARE(redactText("in /home/user/demo/record.py line 71"),
                 std::string("in [path] line [value]"));
        QCOMPARE(redactText("record.py:71 (fn)"), std::string("[file] (fn)"));
        QCOMPARE(redactText("inductor_config[max_fusion_size] 64 \u2192 32"),
                 std::string("inductor_config[max_fusion_size] [value] \u2192 [value]"));
        QCOMPARE(redactText("gm changed: mul(gelu, 2.0) \u2192 mul(gelu, -1e-05)"),
                 std::string("gm changed: mul(gelu, [value]) \u2192 mul(gelu, [value])"));
        QCOMPARE(redactText("layers.0 s77 gb0025 x.size(0) said \"hello 42\""),
                 std::string("layers.0 s77 gb0025 x.size(0) said \"[text]\""));
        QCOMPARE(redactText("unterminated `x = 1"), std::string("unterminated `[code]`"));
        QCOMPARE(redactText(""), std::string());
    }

    void redactsOnlyTheTextOfMarkup()
    {
        QCOMPARE(fxs::report::redactMarkupText(
                     "<text x=\"86.00\" y=\"1\">fn \u00b7 record.py:71</text><g id=\"n3\"/>"
                     "<title>mm [8, 32]</title>"),
                 std::string("<text x=\"86.00\" y=\"1\">fn \u00b7 [file]</text><g id=\"n3\"/>"
                             "<title>mm [[value], [value]]</title>"));
    }

    void escapesHtml()
    {
        QCOMPARE(escapeMarkup("<b>&\"'"), std::string("&lt;b&gt;&amp;&quot;&#39;"));
        fxs::diagnose::Diagnosis d;
        d.runs.push_back({"/x/<script>.log", {}});
        fxs::diagnose::Finding f;
        f.text = "<img src=x onerror=alert(1)>";
        d.findings.push_back(f);
        const std::string page = fxs::report::renderReport({&d, "", "", "1.0"});
        QVERIFY(page.find("<img") == std::string::npos);
        QVERIFY(page.find("&lt;img src=x onerror=alert(1)&gt;") != std::string::npos);
        QVERIFY(page.find("<script") == std::string::npos);
        QVERIFY(page.find("&lt;script&gt;.log") != std::string::npos);
        const std::string redacted = fxs::report::renderReport({&d, "", "", "1.0"}, {true});
        QVERIFY(redacted.find("&lt;script") == std::string::npos); // the run is "run 1"
        QVERIFY(redacted.find("run 1") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestReport)
#include "tst_report.moc"

FXSCOPE_TEST_END
