// Graphs whose parse is put off until first use (io::LoadOptions::deferGraphParsing, what the
// app opens logs with): the same graphs and problems as parsing at import, one parse shared by
// every copy and thread, and the log's line numbers kept.
#include "core/graph/graph_printer.h"
#include "core/io/loader.h"
#include "core/io/torch_trace_reader.h"
#include "core/structure/structure.h"
#include "core/util/file_reader.h"
#include "tests/test_file.h"

#include <QtTest>

#include <set>
#include <thread>

FXSCOPE_TEST_BEGIN

using namespace fxs;

namespace {

std::string recorded(const char* name)
{
    return std::string(FXSCOPE_TEST_DATA "/recorded/traces/") + name;
}

std::string basicCold()
{
    const QDir dir(QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/traces/basic_cold"));
    return dir.filePath(dir.entryList({"*.log"}, QDir::Files).value(0)).toStdString();
}

io::LoadResult load(const std::string& path, bool defer)
{
    io::LoadOptions options;
    options.deferGraphParsing = defer;
    return io::loadPaths({path}, options);
}

std::set<std::string> texts(const Diagnostics& d)
{
    std::set<std::string> out;
    for (const auto& item : d.items()) {
        out.insert(item.toString());
    }
    return out;
}

} // namespace

class TestDeferredGraphs : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Every graph of the llama24 training log: nothing parsed at load, line counts known, and
    // each graph, once read, prints back exactly as the one parsed at import.
    void sameGraphsAsParsingAtImport()
    {
        const auto eager = load(recorded("llama24.log.gz"), false);
        const auto lazy = load(recorded("llama24.log.gz"), true);
        QCOMPARE(lazy.runs.size(), std::size_t(1));
        const auto& a = eager.runs.front().graphs;
        const auto& b = lazy.runs.front().graphs;
        QCOMPARE(b.size(), a.size());
        QVERIFY(b.size() >= 3);
        int large = 0;
        for (std::size_t i = 0; i < a.size(); ++i) {
            QVERIFY(a[i].graph);
            QVERIFY(!b[i].graph);
            QVERIFY(b[i].parsePending());
            QVERIFY(!b[i].parsedGraph());
            QCOMPARE(b[i].payloadLines, a[i].payloadLines);
            QVERIFY(b[i].payloadLines > 0);
            large += b[i].payloadLines > 1000 ? 1 : 0;
            const graph::GraphPtr g = b[i].deferred->get().graph;
            QVERIFY(g);
            QVERIFY(!b[i].parsePending());
            QCOMPARE(b[i].parsedGraph(), g);
            QCOMPARE(g->size(), a[i].graph->size());
            QCOMPARE(graph::printGraphCode(*g, true), graph::printGraphCode(*a[i].graph, true));
        }
        QVERIFY(large > 0); // graphs the app reads in the background
    }

    // A damaged statement in a graph payload: parsing at import and on first use report it at
    // the same log line (basic_cold: the aot_forward_graph envelope is line 1189, `mm` is 1198).
    void problemsKeepTheLogsLines()
    {
        auto text = readFile(basicCold());
        QVERIFY(text.ok());
        std::string damaged = *text;
        std::size_t at = 0;
        for (int line = 1; line < 1198; ++line) {
            at = damaged.find('\n', at) + 1;
        }
        const std::string mm = "\t        mm: \"f32[64, 64][64, 1]cuda:0\" = torch.ops.aten.mm";
        QCOMPARE(damaged.substr(at, mm.size()), mm);
        damaged.replace(at, mm.size(), "\t        mm: \"f32[64, 64][64, 1]cuda:0\" = (((@");
        const QString path = QDir(QDir::tempPath()).filePath(QStringLiteral("fxs_deferred.log"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(damaged.data(), qint64(damaged.size()));
        }
        const auto eager = load(path.toStdString(), false);
        auto lazy = load(path.toStdString(), true);
        QFile::remove(path);
        const auto& ga = eager.runs.at(0).graphs;
        auto& gb = lazy.runs.at(0).graphs;
        std::size_t fwd = 0;
        while (fwd < ga.size() && ga[fwd].line != 1189) {
            ++fwd;
        }
        QVERIFY(fwd < ga.size());
        QVERIFY(ga[fwd].unparsedLines > 0);
        bool at1198 = false;
        for (const auto& d : eager.diagnostics.items()) {
            at1198 = at1198 || (d.line == 1198 && d.severity == Severity::Error);
        }
        QVERIFY(at1198);
        // Deferred: the load reports only the MD5 mismatch; the parse reports the rest.
        Diagnostics all = lazy.diagnostics;
        for (auto& g : gb) {
            io::ensureGraph(g, all);
        }
        QCOMPARE(texts(all), texts(eager.diagnostics));
        QCOMPARE(gb[fwd].unparsedLines, ga[fwd].unparsedLines);
        QCOMPARE(gb[fwd].statements, ga[fwd].statements);
        QVERIFY(!gb[fwd].deferred); // ensureGraph moved the result into the artifact
    }

    // Copies of an artifact (the app's immutable runs, the jobs that hold them) share one
    // parse, and threads asking at once get the one graph.
    void oneParseForCopiesAndThreads()
    {
        const auto lazy = load(recorded("llama24.log.gz"), true);
        const auto& graphs = lazy.runs.front().graphs;
        std::size_t big = 0;
        for (std::size_t i = 0; i < graphs.size(); ++i) {
            big = graphs[i].payloadLines > graphs[big].payloadLines ? i : big;
        }
        const model::GraphArtifact copy = graphs[big];
        std::vector<graph::GraphPtr> seen(8);
        std::vector<std::thread> threads;
        for (std::size_t t = 0; t < seen.size(); ++t) {
            threads.emplace_back(
                [&, t] { seen[t] = (t % 2 ? copy : graphs[big]).deferred->get().graph; });
        }
        for (auto& t : threads) {
            t.join();
        }
        QVERIFY(seen.front());
        for (const auto& g : seen) {
            QCOMPARE(g, seen.front());
        }
        QCOMPARE(graphs[big].parsedGraph(), seen.front());
        // ensureGraph on a copy whose twin ran the parse takes that result.
        model::GraphArtifact other = graphs[big];
        Diagnostics d;
        io::ensureGraph(other, d);
        QCOMPARE(other.graph, seen.front());
    }

    // Structure recovery reads the companions it needs (the forward graph for the backward,
    // the Dynamo graph for module names); it parses nothing itself: graphsReadFor lists what a
    // caller that deferred parsing parses first (the app's WorkspaceLoader does, off the GUI
    // thread), and the tree is then the one of an eager load.
    void structureParsesWhatItReads()
    {
        const auto eager = load(recorded("llama24.log.gz"), false);
        const auto lazy = load(recorded("llama24.log.gz"), true);
        const auto& run = lazy.runs.front();
        for (std::size_t i = 0; i < run.graphs.size(); ++i) {
            if (run.graphs[i].kind != "aot_backward_graph") {
                continue;
            }
            QVERIFY(!structure::recoverRunGraphStructure(run, i)); // not parsed: refused
            QVERIFY(run.graphs[i].parsePending());
            const auto reads = structure::graphsReadFor(run, i);
            QCOMPARE(reads.front(), i);
            QVERIFY(reads.size() >= 2); // itself and its companions of the compile
            for (const std::size_t k : reads) {
                run.graphs[k].deferred->get();
            }
            auto a = structure::recoverRunGraphStructure(eager.runs.front(), i);
            auto b = structure::recoverRunGraphStructure(run, i);
            QVERIFY(a && b);
            QCOMPARE(b->modules.size(), a->modules.size());
            QVERIFY(b->source == a->source);
            QVERIFY(!run.graphs[i].parsePending());
            return;
        }
        QFAIL("no aot_backward_graph in llama24.log.gz");
    }

    // Standalone graph files are the graph: parsed at load either way.
    void graphFilesStayParsed()
    {
        const auto r = load(FXSCOPE_TEST_DATA "/fixtures/graphs/resnet18_infer.txt", true);
        QCOMPARE(r.graphs.size(), std::size_t(1));
        QVERIFY(r.graphs.front().graph);
        QVERIFY(!r.graphs.front().parsePending());
    }
};

QTEST_GUILESS_MAIN(TestDeferredGraphs)
#include "tst_deferred_graphs.moc"

FXSCOPE_TEST_END
