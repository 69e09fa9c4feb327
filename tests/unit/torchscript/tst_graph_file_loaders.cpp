// io's graph file loader registry (graph_file_loaders.h) with a fake torch-free format: loadPaths
// asks registered loaders first, reports their errors and exceptions as diagnostics naming the
// file, replaces a loader registered twice under one name, and leaves other files to its own
// sniffing.
#include "core/graph/graph_builder.h"
#include "core/io/graph_file_loaders.h"
#include "core/io/loader.h"
#include "tests/test_file.h"

#include <QtTest>

#include <fstream>
#include <stdexcept>

FXSCOPE_TEST_BEGIN

using namespace fxs;

namespace {

bool endsWith(const std::string& s, const std::string& tail)
{
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// A ".fake" file's graph: one placeholder per line of the file, returned as they are.
Result<model::GraphArtifact> loadFake(const std::string& path, Diagnostics& diagnostics)
{
    std::ifstream in(path);
    if (!in) {
        return makeError(ErrorCode::Io, "cannot open fake file", path);
    }
    graph::GraphBuilder b;
    std::vector<graph::Argument> outs;
    for (std::string line; std::getline(in, line);) {
        if (line == "throw") {
            throw std::runtime_error("fake loader exploded");
        }
        outs.push_back(graph::Argument::ref(b.placeholder(line)));
    }
    b.output(std::move(outs));
    auto g = b.build();
    if (!g.ok()) {
        return g.error();
    }
    diagnostics.warning(path, 0, "fake files are fake");
    model::GraphArtifact a;
    a.kind = "graph";
    a.file = path;
    a.graph = *g;
    return a;
}

void registerFake()
{
    io::registerGraphFileLoader(
        "fake", [](const std::string& p) { return endsWith(p, ".fake"); }, &loadFake);
}

std::string write(const QTemporaryDir& dir, const char* name, const std::string& text)
{
    const std::string path = dir.filePath(QString::fromLatin1(name)).toStdString();
    std::ofstream(path) << text;
    return path;
}

} // namespace

class TestGraphFileLoaders : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void registeredLoaderReadsItsFiles()
    {
        registerFake();
        QTemporaryDir dir;
        const auto path = write(dir, "a.fake", "x\ny\nz\n");
        const auto r = io::loadPaths({path});
        QCOMPARE(r.graphs.size(), std::size_t(1));
        QCOMPARE(r.graphs[0].graph->placeholders().size(), std::size_t(3));
        QCOMPARE(r.diagnostics.size(), std::size_t(1)); // the loader's own warning, kept
        QCOMPARE(r.diagnostics.items()[0].severity, Severity::Warning);
    }

    void othersStillSniffedByIo()
    {
        registerFake();
        QTemporaryDir dir;
        const auto path = write(dir, "g.txt",
                                "class GraphModule(torch.nn.Module):\n"
                                "    def forward(self, x: \"f32[4][1]cpu\"):\n"
                                "        a: \"f32[4][1]cpu\" = torch.ops.aten.relu.default(x)\n"
                                "        return (a,)\n");
        const auto r = io::loadPaths({path});
        QCOMPARE(r.graphs.size(), std::size_t(1));
        QCOMPARE(r.graphs[0].graph->size(), std::size_t(3));
        QVERIFY(r.diagnostics.empty());
    }

    void errorsAndExceptionsBecomeDiagnostics()
    {
        registerFake();
        QTemporaryDir dir;
        const auto dup = write(dir, "dup.fake", "x\nx\n"); // duplicate name: build() fails
        const auto boom = write(dir, "boom.fake", "x\nthrow\n");
        const auto ok = write(dir, "ok.fake", "x\n");
        const auto r = io::loadPaths({dup, boom, ok});
        QCOMPARE(r.graphs.size(), std::size_t(1)); // loading goes on after failures
        QCOMPARE(r.graphs[0].file, ok);
        QCOMPARE(r.diagnostics.errorCount(), std::size_t(2));
        QCOMPARE(r.diagnostics.items()[0].file, dup);
        QCOMPARE(r.diagnostics.items()[1].file, boom);
        QVERIFY(r.diagnostics.items()[1].message.find("fake loader exploded") != std::string::npos);
    }

    void sameNameReplaces()
    {
        registerFake();
        io::registerGraphFileLoader(
            "fake", [](const std::string&) { return false; }, &loadFake);
        QCOMPARE(io::graphFileLoaderNames(), (std::vector<std::string>{"fake"}));
        QTemporaryDir dir;
        const auto r = io::loadPaths({write(dir, "a.fake", "x\n")});
        QVERIFY(r.graphs.empty()); // the replacement sniffs nothing: io calls it unrecognised
        QCOMPARE(r.diagnostics.errorCount(), std::size_t(1));
        QVERIFY(r.diagnostics.items()[0].expected.find("fake") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestGraphFileLoaders)
#include "tst_graph_file_loaders.moc"

FXSCOPE_TEST_END
