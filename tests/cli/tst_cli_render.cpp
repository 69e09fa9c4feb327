// fxscope-cli render end to end: SVG and PNG files, the JSON summary, graph choice in traces,
// and exit codes. Node counts are counted by hand in the fixtures (see each comment).
#include "tests/cli/cli_runner.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include <nlohmann/json.hpp>

using nlohmann::json;

namespace {

using fxs::test::CliRun;
using fxs::test::runCli;

QString fixture(const char* relative)
{
    return QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/") + QLatin1String(relative);
}

} // namespace

class TestCliRender : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void rendersSvgOfGraphCode()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("g.svg"));
        const CliRun r = runCli({QStringLiteral("render"), fixture("graphs/gpt2_annotated_fw.txt"),
                                 QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j.at("format").get<std::string>(), std::string("svg"));
        QCOMPARE(j.at("output").get<std::string>(), out.toStdString());
        // 30 placeholders + 121 statements + output
        QCOMPARE(j.at("graph").at("nodes").get<int>(), 152);
        QCOMPARE(j.at("graph").at("kind").get<std::string>(), std::string("graph"));
        // Under 300 nodes the view opens expanded: one item per node.
        QCOMPARE(j.at("visible_items").get<int>(), 152);
        QVERIFY(j.at("width").get<double>() > 0 && j.at("height").get<double>() > 0);

        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QXmlStreamReader xml(&file);
        int nodes = 0;
        int regions = 0;
        while (!xml.atEnd()) {
            if (xml.readNext() == QXmlStreamReader::StartElement) {
                const auto cls = xml.attributes().value(QLatin1String("class"));
                nodes += cls == QLatin1String("node") ? 1 : 0;
                regions += cls == QLatin1String("region") ? 1 : 0;
            }
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QCOMPARE(nodes, 152);
        QVERIFY(regions > 0); // the MLPs are annotated compile_with_inductor: 0
    }

    void rendersCollapsedPngOfLargeGraph()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("bw.png"));
        const CliRun r = runCli({QStringLiteral("render"), fixture("graphs/gpt12_train_bw.txt"),
                                 QStringLiteral("-o"), out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j.at("format").get<std::string>(), std::string("png"));
        QVERIFY(j.at("graph").at("nodes").get<int>() > 1000);
        QVERIFY(j.at("visible_items").get<int>() < 100);
        QCOMPARE(j.at("expanded_groups").get<int>(), 0);
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.read(8), QByteArray("\x89PNG\r\n\x1a\n", 8));
    }

    void picksGraphOfTraceByKind()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("fw.svg"));
        const CliRun r = runCli({QStringLiteral("render"), fixture("traces/basic_cold"),
                                 QStringLiteral("--out"), out, QStringLiteral("--kind"),
                                 QStringLiteral("aot_forward_graph")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j.at("graph").at("kind").get<std::string>(), std::string("aot_forward_graph"));
        QCOMPARE(j.at("graph").at("compile_id").get<std::string>(), std::string("0/0"));
        // primals_1, primals_2, sin, mm, relu, mul, le, permute, permute_1, output
        QCOMPARE(j.at("graph").at("nodes").get<int>(), 10);
        QVERIFY(QFile::exists(out));
    }

    void expandAllShowsEveryNode()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("all.svg"));
        const CliRun r = runCli({QStringLiteral("render"), fixture("graphs/gpt2_annotated_fw.txt"),
                                 QStringLiteral("--out"), out, QStringLiteral("--collapse-above"),
                                 QStringLiteral("10")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json collapsed = json::parse(r.out.toStdString());
        QVERIFY(collapsed.at("visible_items").get<int>() < 152);
        const CliRun r2 = runCli({QStringLiteral("render"), fixture("graphs/gpt2_annotated_fw.txt"),
                                  QStringLiteral("--out"), out, QStringLiteral("--collapse-above"),
                                  QStringLiteral("10"), QStringLiteral("--expand-all")});
        QVERIFY2(r2.exitCode == 0, r2.err.constData());
        QCOMPARE(json::parse(r2.out.toStdString()).at("visible_items").get<int>(), 152);
    }

    void exitCodes()
    {
        QTemporaryDir dir;
        const QString graph = fixture("graphs/gpt2_annotated_fw.txt");
        // Unknown output format: usage error.
        QCOMPARE(runCli({QStringLiteral("render"), graph, QStringLiteral("--out"),
                         dir.filePath(QStringLiteral("x.gif"))}).exitCode, 2);
        // Missing input: input error.
        QCOMPARE(runCli({QStringLiteral("render"), dir.filePath(QStringLiteral("none.txt")),
                         QStringLiteral("--out"), dir.filePath(QStringLiteral("x.svg"))}).exitCode,
                 1);
        // A kind the trace does not hold, and an index out of range: usage errors.
        QCOMPARE(runCli({QStringLiteral("render"), fixture("traces/basic_cold"),
                         QStringLiteral("--out"), dir.filePath(QStringLiteral("x.svg")),
                         QStringLiteral("--kind"), QStringLiteral("no_such_kind")}).exitCode, 2);
        QCOMPARE(runCli({QStringLiteral("render"), graph, QStringLiteral("--out"),
                         dir.filePath(QStringLiteral("x.svg")), QStringLiteral("--graph"),
                         QStringLiteral("5")}).exitCode, 2);
        // Unwritable output: render error.
        QCOMPARE(runCli({QStringLiteral("render"), graph, QStringLiteral("--out"),
                         dir.filePath(QStringLiteral("no/such/dir/x.svg"))}).exitCode, 3);
    }
};

QTEST_GUILESS_MAIN(TestCliRender)
#include "tst_cli_render.moc"
