// .fxscope project files: round trip of every field, schema and shape errors, and re-matching
// regions by node name after the graph's source changed (missing nodes, emptied and
// no-longer-legal regions reported, not dropped silently).
#include "core/partition/project_file.h"
#include "core/partition/region_edit.h"
#include "partition_test_graphs.h"
#include "tests/test_file.h"

#include <QTemporaryDir>
#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::graph;
using namespace fxs::partition;
using namespace fxs::partition::testing;

namespace {

const char* kGraph =
    "class GraphModule(torch.nn.Module):\n"
    "    def forward(self, x: \"f32[4][1]cpu\"):\n"
    "        # File: /tmp/demo.py:3 in fn, code: y = x.sin().cos()\n"
    "        sin: \"f32[4][1]cpu\" = torch.ops.aten.sin.default(x);  x = None\n"
    "        cos: \"f32[4][1]cpu\" = torch.ops.aten.cos.default(sin)\n"
    "        mul: \"f32[4][1]cpu\" = torch.ops.aten.mul.Tensor(sin, cos);  sin = cos = None\n"
    "        relu: \"f32[4][1]cpu\" = torch.ops.aten.relu.default(mul);  mul = None\n"
    "        return (relu,)\n";

std::string replaced(std::string text, const std::string& from, const std::string& to)
{
    auto pos = text.find(from);
    while (pos != std::string::npos) {
        text.replace(pos, from.size(), to);
        pos = text.find(from, pos + to.size());
    }
    return text;
}

GraphPtr parse(const std::string& text)
{
    return io::parseGraphCode(text, "demo.txt").graph;
}

Project demoProject(const Graph& g, const std::string& text)
{
    auto regions = *createRegion(g, {}, {*g.find("sin"), *g.find("cos"), *g.find("mul")},
                                 "front").regions;
    regions = *createRegion(g, regions, {*g.find("relu")}).regions;
    regions[0].annotation = "{\"compile_with_inductor\":0}";
    regions[1].options = "{\"inductor_configs\":{\"max_autotune\":true}}";
    return makeProject(g, regions, "demo.txt", text, "{\"zoom\":1.5,\"selected\":[\"mul\"]}");
}

} // namespace

class TestProjectFile : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void roundTripsEveryField()
    {
        const std::string text = kGraph;
        const auto g = parse(text);
        QVERIFY(g);
        QCOMPARE(g->size(), std::size_t(6));
        const Project p = demoProject(*g, text);
        QCOMPARE(p.sourceSha256.size(), std::size_t(64));
        const auto back = parseProject(serializeProject(p));
        QVERIFY(back.ok());
        QCOMPARE(back->schema, 1);
        QCOMPARE(back->sourcePath, std::string("demo.txt"));
        QCOMPARE(back->sourceSha256, p.sourceSha256);
        QCOMPARE(back->regions.size(), std::size_t(2));
        QCOMPARE(back->regions[0].id, std::string("r0"));
        QCOMPARE(back->regions[0].name, std::string("front"));
        QCOMPARE(back->regions[0].nodes, (std::vector<std::string>{"sin", "cos", "mul"}));
        QCOMPARE(*back->regions[0].annotation, std::string("{\"compile_with_inductor\":0}"));
        QVERIFY(back->regions[0].options.empty());
        QVERIFY(!back->regions[1].annotation);
        QCOMPARE(back->regions[1].options,
                 std::string("{\"inductor_configs\":{\"max_autotune\":true}}"));
        QCOMPARE(back->viewState, std::string("{\"selected\":[\"mul\"],\"zoom\":1.5}"));
    }

    void savesAndLoadsFiles()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("demo.fxscope").toStdString();
        const std::string text = kGraph;
        const auto g = parse(text);
        QVERIFY(saveProject(path, demoProject(*g, text)).ok());
        const auto loaded = loadProject(path);
        QVERIFY(loaded.ok());
        QCOMPARE(loaded->regions.size(), std::size_t(2));
        QVERIFY(!loadProject(dir.filePath("missing.fxscope").toStdString()).ok());
    }

    void rejectsBadFiles()
    {
        QCOMPARE(parseProject("not json").error().code, ErrorCode::Parse);
        QCOMPARE(parseProject("{\"regions\": []}").error().code, ErrorCode::Parse);
        QCOMPARE(parseProject("{\"schema\": 2}").error().code, ErrorCode::Unsupported);
        const auto badRegion = parseProject("{\"schema\": 1, \"regions\": [{\"id\": \"r0\"}]}");
        QVERIFY(!badRegion.ok());
        QVERIFY(badRegion.error().message.find("regions[0]") != std::string::npos);
    }

    // Parts of the wrong type are errors that name the part, what was expected and what was
    // found: never an exception out of the JSON library (a number as the source path made
    // `partition --project` abort), never a part dropped.
    void rejectsMistypedParts()
    {
        struct Case {
            const char* text;
            const char* names;
            const char* expected;
            const char* found;
        };
        const Case cases[] = {
            {R"({"schema": 1, "source": {"path": 5}})", "source.path", "a JSON string", "5"},
            {R"({"schema": 1, "source": {"sha256": []}})", "source.sha256", "a JSON string",
             "[]"},
            {R"({"schema": 1, "source": "g.txt"})", "\"source\"", "an object", "\"g.txt\""},
            {R"({"schema": 1, "regions": {}})", "\"regions\"", "a list", "{}"},
            {R"({"schema": 1, "view_state": 3})", "\"view_state\"", "an object", "3"},
            {R"({"schema": 1, "regions": [{"id": "r0", "nodes": [], "name": 7}]})",
             "regions[0].name", "a JSON string", "7"},
            {R"({"schema": -1})", "schema", "\"schema\": 1", "-1"},
        };
        for (const Case& c : cases) {
            const auto r = parseProject(c.text);
            QVERIFY2(!r.ok(), c.text);
            QCOMPARE(r.error().code, ErrorCode::Parse);
            QVERIFY2(r.error().message.find(c.names) != std::string::npos,
                     r.error().message.c_str());
            QCOMPARE(r.error().expected, std::string(c.expected));
            QCOMPARE(r.error().found, std::string(c.found));
        }
        // Present and of their types, all are read.
        const auto ok = parseProject(
            R"({"schema": 1, "source": {"path": "g.txt", "sha256": "ab"}, "regions": [],)"
            R"( "view_state": {"zoom": 2}})");
        QVERIFY(ok.ok());
        QCOMPARE(ok->sourcePath, std::string("g.txt"));
        QCOMPARE(ok->sourceSha256, std::string("ab"));
        QCOMPARE(ok->viewState, std::string(R"({"zoom":2})"));
    }

    void rematchesUnchangedSource()
    {
        const std::string text = kGraph;
        const auto g = parse(text);
        const Rematch m = rematchProject(demoProject(*g, text), *g, text);
        QVERIFY(m.clean());
        QVERIFY(!m.sourceChanged);
        QCOMPARE(m.regions.size(), std::size_t(2));
        QCOMPARE(names(*g, m.regions[0].nodes), (std::vector<std::string>{"sin", "cos", "mul"}));
        QCOMPARE(names(*g, m.regions[0].inputs), std::vector<std::string>{"x"});
        QCOMPARE(m.regions[1].label(), std::string("r1"));
    }

    void reportsWhatNoLongerMatches()
    {
        const std::string text = kGraph;
        const Project p = demoProject(*parse(text), text);
        // relu renamed: r1 loses its only node.
        const std::string editA = replaced(text, "relu", "relu_1");
        const auto ga = parse(editA);
        QVERIFY(ga);
        const Rematch a = rematchProject(p, *ga, editA);
        QVERIFY(a.sourceChanged);
        QCOMPARE(a.regions.size(), std::size_t(1));
        QCOMPARE(a.missingNodes.size(), std::size_t(1));
        QCOMPARE(a.missingNodes[0].region, std::string("r1"));
        QCOMPARE(a.missingNodes[0].node, std::string("relu"));
        QCOMPARE(a.emptyRegions, std::vector<std::string>{"r1"});
        // cos renamed: r0 keeps sin and mul, but sin -> cos_1 -> mul now leaves and returns.
        const std::string editB = replaced(text, "cos", "cos_1");
        const auto gb = parse(editB);
        const Rematch b = rematchProject(p, *gb, editB);
        QCOMPARE(b.missingNodes.size(), std::size_t(1));
        QCOMPARE(b.missingNodes[0].node, std::string("cos"));
        QCOMPARE(b.invalidRegions.size(), std::size_t(1));
        QCOMPARE(b.invalidRegions[0].region, std::string("r0"));
        QVERIFY(b.invalidRegions[0].reason.find("sin (front) → cos_1 → mul (front)") !=
                std::string::npos);
        QCOMPARE(b.regions.size(), std::size_t(1));
        QCOMPARE(b.regions[0].id, std::string("r1"));
    }
};

QTEST_GUILESS_MAIN(TestProjectFile)
#include "tst_project_file.moc"

FXSCOPE_TEST_END
