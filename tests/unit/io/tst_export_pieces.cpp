// The `.pt2` program read piece by piece (issue 31: a 1M-node archive took 45 s and 3.2 GB to
// inspect): a generated 20,000-node archive reads whole and right (facts of the generator,
// not of the reader), members in any order, and text that is not JSON — nested deeper than
// 200, cut short, a bad token inside one node, text after the object — still gives the
// errors with the byte where it goes wrong and no half-read graph, while numbers past 64 bits
// (JSON all the same) still read.
#include "core/io/export_program_reader.h"
#include "core/io/pt2_reader.h"
#include "tests/data/make_pt2_archive.h"
#include "tests/test_file.h"

#include <QtTest>

#include <cstdint>
#include <optional>
#include <set>
#include <string>

FXSCOPE_TEST_BEGIN

using namespace fxs;

namespace {

bool hasDiagnostic(const Diagnostics& d, const std::string& text)
{
    for (const auto& item : d.items()) {
        if (item.toString().find(text) != std::string::npos) {
            return true;
        }
    }
    return false;
}

std::string allDiagnostics(const Diagnostics& d)
{
    std::string out;
    for (const auto& item : d.items()) {
        out += item.toString() + "\n";
    }
    return out;
}

std::string reluName(std::size_t i)
{
    return "relu_" + std::to_string(i);
}

// The program of n relu nodes with the text at `needle`'s first occurrence after node k's
// name replaced by `with`, and where the replacement starts.
std::pair<std::string, std::size_t> editedAfterNode(std::size_t n, std::size_t k,
                                                    const std::string& needle,
                                                    const std::string& with)
{
    std::string json = testdata::pt2ProgramJson(n, reluName);
    const auto node = json.find("\"outputs\": [{\"as_tensor\": {\"name\": \"" + reluName(k));
    const auto at = json.find(needle, node);
    json.replace(at, needle.size(), with);
    return {json, at};
}

io::Pt2ReadResult readArchive(const std::string& json, const char* label)
{
    auto read = io::readPt2Bytes(testdata::pt2Archive(json), label);
    if (!read.ok()) {
        qFatal("%s", read.error().toString().c_str());
    }
    return std::move(*read);
}

} // namespace

class TestExportPieces : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // x -> relu_0 -> ... -> relu_19999 -> output, each f32[4] (the generator's chain).
    void twentyThousandNodes()
    {
        constexpr std::size_t kNodes = 20000;
        const auto read = readArchive(testdata::pt2ProgramJson(kNodes, reluName), "big.pt2");
        QVERIFY2(read.diagnostics.errorCount() == 0, allDiagnostics(read.diagnostics).c_str());
        QVERIFY(read.graph);
        const graph::Graph& g = *read.graph;
        QCOMPARE(g.size(), kNodes + 2);
        QCOMPARE(g.node(0).name, std::string("x"));
        QCOMPARE(g.node(0).op, graph::OpKind::Placeholder);
        const graph::TensorMeta f32x4{graph::DType::Float32, {graph::SymInt::of(4)},
                                      std::vector<graph::SymInt>{graph::SymInt::of(1)},
                                      graph::Device{"cpu", -1}};
        for (const std::size_t i : {std::size_t(0), std::size_t(1), std::size_t(9999),
                                    kNodes - 1}) {
            const graph::Node& n = g.node(static_cast<graph::NodeId>(i + 1));
            QCOMPARE(n.name, reluName(i));
            QCOMPARE(n.target, std::string("aten::relu.default"));
            QCOMPARE(n.args.size(), std::size_t(1));
            QCOMPARE(n.args[0].node, static_cast<graph::NodeId>(i)); // the previous one
            QVERIFY(n.tensorMeta() != nullptr);
            QCOMPARE(*n.tensorMeta(), f32x4);
        }
        QVERIFY(g.node(0).tensorMeta() != nullptr);
        const graph::Node& out = g.node(g.outputNode());
        QCOMPARE(out.args.size(), std::size_t(1));
        std::set<std::string> names;
        for (const auto& n : g.nodes()) {
            names.insert(n.name);
        }
        std::set<std::string> expected{"x", "output"};
        for (std::size_t i = 0; i < kNodes; ++i) {
            expected.insert(reluName(i));
        }
        QCOMPARE(names, expected);
        QCOMPARE(read.program->inputs.size(), std::size_t(1));
        QCOMPARE(read.program->outputs.size(), std::size_t(1));
        QCOMPARE(read.program->outputs[0].name, reluName(kNodes - 1));
    }

    // The signature after the graph, tensor_values before the nodes, outputs before inputs,
    // a meta's name written with an escape ("y\u0031" is y1): read as if in schema order.
    void membersInAnyOrder()
    {
        const std::string meta23 =
            R"({"dtype": 7, "sizes": [{"as_int": 2}, {"as_int": 3}], "requires_grad": false,)"
            R"( "device": {"type": "cpu", "index": null}, "strides": [{"as_int": 3},)"
            R"( {"as_int": 1}], "storage_offset": {"as_int": 0}, "layout": 7})";
        const std::string json =
            R"({"graph_module": {"graph": {"tensor_values": {"x": )" + meta23 +
            R"(, "y\u0031": )" + meta23 +
            R"(}, "outputs": [{"as_tensor": {"name": "y1"}}], "nodes": [{"target":)"
            R"( "torch.ops.aten.relu.default", "inputs": [{"name": "self", "arg": {"as_tensor":)"
            R"( {"name": "x"}}, "kind": 1}], "outputs": [{"as_tensor": {"name": "y1"}}],)"
            R"( "metadata": {}, "name": "y1"}], "inputs": [{"as_tensor": {"name": "x"}}]},)"
            R"( "signature": {"output_specs": [{"user_output": {"arg": {"as_tensor":)"
            R"( {"name": "y1"}}}}], "input_specs": [{"user_input": {"arg": {"as_tensor":)"
            R"( {"name": "x"}}}}]}}, "schema_version": {"major": 8, "minor": 17}})";
        const auto read = readArchive(json, "order.pt2");
        QVERIFY2(read.diagnostics.errorCount() == 0, allDiagnostics(read.diagnostics).c_str());
        QVERIFY(read.graph);
        QCOMPARE(read.graph->size(), std::size_t(3));
        const graph::Node& y1 = read.graph->node(1);
        QCOMPARE(y1.name, std::string("y1"));
        QVERIFY(y1.tensorMeta() != nullptr);
        const std::vector<graph::SymInt> sizes{graph::SymInt::of(2), graph::SymInt::of(3)};
        QCOMPARE(y1.tensorMeta()->sizes, sizes);
        QCOMPARE(read.program->schemaMajor, 8);
        QCOMPARE(read.program->inputs.size(), std::size_t(1));
        QCOMPARE(read.program->inputs[0].name, std::string("x"));
    }

    // 300 arrays as node 10's metadata: levels 1-5 are root, graph_module, graph, nodes and
    // the node, so level 201 opens at the 196th '[' (byte at + 195).
    void nestedDeeperThan200InsideANode()
    {
        const auto [json, at] =
            editedAfterNode(50, 10, "\"metadata\": {}", "\"metadata\": " +
                                                            std::string(300, '[') +
                                                            std::string(300, ']'));
        const std::size_t deep = at + std::string("\"metadata\": ").size() + 195;
        const auto read = readArchive(json, "deep.pt2");
        QVERIFY(!read.graph);
        QVERIFY2(hasDiagnostic(read.diagnostics,
                               "deep.pt2!model/models/model.json: JSON nested deeper than 200 "
                               "levels at byte " +
                                   std::to_string(deep)),
                 allDiagnostics(read.diagnostics).c_str());
        const auto direct = io::readExportedProgramJson(json, "deep.json"); // the copying entry
        QVERIFY(!direct.graph);
        QVERIFY(hasDiagnostic(direct.diagnostics,
                              "JSON nested deeper than 200 levels at byte " +
                                  std::to_string(deep)));
    }

    // Cut in the middle of node 500 of 1000: an error at the end of the text, no graph.
    void cutShortInTheNodes()
    {
        const std::string whole = testdata::pt2ProgramJson(1000, reluName);
        const std::string json = whole.substr(0, whole.find("\"name\": \"relu_500\"}"));
        const auto read = readArchive(json, "cut.pt2");
        QVERIFY(!read.graph);
        QVERIFY2(hasDiagnostic(read.diagnostics, "cut.pt2!model/models/model.json: not valid "
                                                 "JSON (byte " +
                                                     std::to_string(json.size() + 1) + ")"),
                 allDiagnostics(read.diagnostics).c_str());
        QVERIFY(hasDiagnostic(read.diagnostics, "unexpected end of input"));
    }

    // A bad token inside node 7 (the pass that cuts the text skips whole nodes; the node's
    // own parse finds it): where it is, and nothing of the graph.
    void badTokenInsideANode()
    {
        const auto [json, at] = editedAfterNode(20, 7, "\"kind\": 1", "\"kind\": 1 2");
        const auto read = readArchive(json, "token.pt2");
        QVERIFY(!read.graph);
        // nlohmann counts bytes read: the '2' at index at + 10 is byte at + 11.
        QVERIFY2(hasDiagnostic(read.diagnostics,
                               "not valid JSON (byte " + std::to_string(at + 11) + ")"),
                 allDiagnostics(read.diagnostics).c_str());
        const auto literal = editedAfterNode(20, 7, "\"metadata\": {}", "\"metadata\": tru");
        const auto bad = readArchive(literal.first, "literal.pt2");
        QVERIFY(!bad.graph);
        QVERIFY2(hasDiagnostic(bad.diagnostics, "not valid JSON (byte "),
                 allDiagnostics(bad.diagnostics).c_str());
    }

    // Numbers past 64 bits are JSON (the int-edges seed of issue 31): read as before, a bound
    // that no int64 holds is no bound, and the graph is kept.
    void numbersPast64Bits()
    {
        std::string json = testdata::pt2ProgramJson(3, reluName);
        json.replace(0, 1, R"({"range_constraints": {"s0": {"min_val": -9223372036854775808,)"
                           R"( "max_val": 99999999999999999999}}, )");
        const std::string metadata = "\"metadata\": {}";
        json.replace(json.find(metadata), metadata.size(),
                     "\"metadata\": {\"big\": 123456789012345678901234567890}");
        const auto read = readArchive(json, "numbers.pt2");
        QVERIFY2(read.diagnostics.errorCount() == 0, allDiagnostics(read.diagnostics).c_str());
        QVERIFY(read.graph);
        QCOMPARE(read.graph->size(), std::size_t(5));
        QCOMPARE(read.program->ranges.size(), std::size_t(1));
        QCOMPARE(read.program->ranges[0].min, std::optional<std::int64_t>(INT64_MIN));
        QCOMPARE(read.program->ranges[0].max, std::optional<std::int64_t>());
    }

    void textAfterTheObject()
    {
        const std::string json = testdata::pt2ProgramJson(3, reluName) + " {}";
        const auto read = readArchive(json, "trailing.pt2");
        QVERIFY(!read.graph);
        QVERIFY2(hasDiagnostic(read.diagnostics, "not valid JSON (byte "),
                 allDiagnostics(read.diagnostics).c_str());
    }

    void notAnObject()
    {
        const auto read = readArchive("[1, 2]", "array.pt2");
        QVERIFY(!read.graph);
        QVERIFY2(hasDiagnostic(read.diagnostics, "the program is not a JSON object"),
                 allDiagnostics(read.diagnostics).c_str());
    }
};

QTEST_GUILESS_MAIN(TestExportPieces)
#include "tst_export_pieces.moc"

FXSCOPE_TEST_END
