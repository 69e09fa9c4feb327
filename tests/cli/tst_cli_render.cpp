// fxscope-cli render end to end: SVG and PNG files, the JSON summary, graph choice in traces,
// module groups and --module on the recorded 24-layer LLaMA run, and exit codes. Node counts
// are counted by hand in the fixtures (see each comment).
#include "tests/cli/cli_runner.h"
#include "tests/test_file.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

FXSCOPE_TEST_BEGIN

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
        // Expanded whole it is 1330 × 1851 pt: fitted in a 1500 × 800 window, zoom 0.43, too
        // small to read. It opens as deep as it reads (zoom ≥ 0.55): inputs (6), embedding,
        // the two identical blocks (2 × 68) open with their tallest parts collapsed, the rest
        // of forward (8), output.
        const int shown = j.at("visible_items").get<int>();
        QVERIFY2(shown > 5 && shown < 152, qPrintable(QString::number(shown)));
        QCOMPARE(j.at("items").at(2).at("label").get<std::string>(), std::string("block 0–1"));
        QCOMPARE(j.at("items").at(2).at("nodes").get<int>(), 136);
        QVERIFY(j.at("items").at(2).at("expanded").get<bool>());
        const double w = j.at("width").get<double>();
        const double h = j.at("height").get<double>();
        QVERIFY2(w > 0 && h > 0 && std::min(1500 / w, 800 / h) >= 0.55,
                 qPrintable(QStringLiteral("%1 x %2").arg(w).arg(h)));
        // Every group expanded: one item per node.
        const CliRun all = runCli({QStringLiteral("render"), fixture("graphs/gpt2_annotated_fw.txt"),
                                   QStringLiteral("--out"), out, QStringLiteral("--expand-all")});
        QVERIFY2(all.exitCode == 0, all.err.constData());
        const json whole = json::parse(all.out.toStdString());
        QCOMPARE(whole.at("visible_items").get<int>(), 152);
        QVERIFY(std::min(1500 / whole.at("width").get<double>(),
                         800 / whole.at("height").get<double>()) < 0.55);

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

    // The Dynamo graph of LlamaForCausalLM opens as the model: the embedding, the 24 identical
    // decoder layers as one box, the final norm, the head and the loss.
    void groupsByModulesAndListsTopItems()
    {
        QTemporaryDir dir;
        const QString trace = QStringLiteral(FXSCOPE_TEST_DATA "/recorded/traces/llama24.log.gz");
        const CliRun r = runCli({QStringLiteral("render"), trace, QStringLiteral("--kind"),
                                 QStringLiteral("dynamo_output_graph"), QStringLiteral("--out"),
                                 dir.filePath(QStringLiteral("m.svg"))});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j.at("grouped_by").get<std::string>(), std::string("names"));
        std::map<std::string, json> items;
        for (const json& item : j.at("items")) {
            items[item.at("label").get<std::string>()] = item;
        }
        for (const char* name : {"embed_tokens", "norm", "lm_head"}) {
            QVERIFY2(items.count(name) && items[name].at("kind") == "module", name);
        }
        const json& layers = items["layers.0–23"];
        QCOMPARE(layers.at("kind").get<std::string>(), std::string("repeated"));
        const int each = layers.at("nodes").get<int>() / 24;
        QCOMPARE(layers.at("nodes").get<int>(), 24 * each);
        QCOMPARE(layers.at("detail").get<std::string>(),
                 "24 identical · " + std::to_string(each) + " nodes each");
        QVERIFY(j.at("visible_items").get<int>() <= 20);
        // The loss: the cross entropy of transformers' loss_utils.py, one box.
        QVERIFY(items.count("ForCausalLMLoss · loss_utils.py"));
        // Source groups on request: no module labels.
        const CliRun bySource = runCli({QStringLiteral("render"), trace, QStringLiteral("--kind"),
                                        QStringLiteral("dynamo_output_graph"),
                                        QStringLiteral("--group-by"), QStringLiteral("source"),
                                        QStringLiteral("--out"),
                                        dir.filePath(QStringLiteral("s.svg"))});
        QVERIFY2(bySource.exitCode == 0, bySource.err.constData());
        const json s = json::parse(bySource.out.toStdString());
        QCOMPARE(s.at("grouped_by").get<std::string>(), std::string("source"));
        for (const json& item : s.at("items")) {
            QVERIFY(item.at("kind") != "module" && item.at("kind") != "repeated");
        }
    }

    // --module draws one decoder layer of the AOT forward graph (module paths mapped from the
    // Dynamo graph): its norms, attention and MLP, expanded.
    void drawsOneModule()
    {
        QTemporaryDir dir;
        const QString trace = QStringLiteral(FXSCOPE_TEST_DATA "/recorded/traces/llama24.log.gz");
        const CliRun r = runCli({QStringLiteral("render"), trace, QStringLiteral("--kind"),
                                 QStringLiteral("aot_forward_graph"), QStringLiteral("--module"),
                                 QStringLiteral("model.layers.3"), QStringLiteral("--out"),
                                 dir.filePath(QStringLiteral("l3.svg"))});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j.at("module").get<std::string>(), std::string("model.layers.3"));
        QCOMPARE(j.at("grouped_by").get<std::string>(), std::string("aot_mapping"));
        std::vector<std::string> modules;
        for (const json& item : j.at("items")) {
            if (item.at("kind") == "module") {
                modules.push_back(item.at("label").get<std::string>());
                QVERIFY(item.at("expanded").get<bool>());
            }
        }
        QCOMPARE(modules, (std::vector<std::string>{"input_layernorm", "self_attn",
                                                    "post_attention_layernorm", "mlp"}));
        // Far fewer boxes than the graph's 2.4k nodes: one layer.
        QVERIFY(j.at("visible_items").get<int>() < 150);
        QCOMPARE(runCli({QStringLiteral("render"), trace, QStringLiteral("--kind"),
                         QStringLiteral("aot_forward_graph"), QStringLiteral("--module"),
                         QStringLiteral("model.layers.30"), QStringLiteral("--out"),
                         dir.filePath(QStringLiteral("x.svg"))}).exitCode,
                 2);
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

FXSCOPE_TEST_END
