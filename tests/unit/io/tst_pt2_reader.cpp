// torch.export `.pt2` archives: round trips against the printed graph and signature of the same
// exports (recorded with PyTorch 2.11), the module tree from nn_module_stack, symbolic sizes
// with their ranges, higher-order bodies, the weight index, and every kind of bad archive
// (made here with libzip from a good one).
#include "core/io/export_program_reader.h"
#include "core/io/loader.h"
#include "core/io/pt2_reader.h"
#include "core/io/graph_code_parser.h"
#include "core/io/sympy_text.h"
#include "core/util/file_reader.h"
#include "core/util/strings.h"
#include "tests/data/make_pt2_archive.h"
#include "tests/test_file.h"

#include <QtTest>

#include <zip.h>

#include <map>
#include <set>

FXSCOPE_TEST_BEGIN

using namespace fxs;

namespace {

std::string data(const char* relative)
{
    return std::string(FXSCOPE_TEST_DATA "/") + relative;
}

std::string recorded(const std::string& name)
{
    return data("recorded/export/") + name;
}

using Entries = std::vector<std::pair<std::string, std::string>>;

// All entries of an archive, in order.
Entries entriesOf(const std::string& path)
{
    Entries out;
    int err = 0;
    zip_t* z = zip_open(path.c_str(), ZIP_RDONLY, &err);
    for (zip_int64_t i = 0; z != nullptr && i < zip_get_num_entries(z, 0); ++i) {
        zip_stat_t st;
        zip_stat_index(z, static_cast<zip_uint64_t>(i), 0, &st);
        std::string bytes(st.size, '\0');
        zip_file_t* f = zip_fopen_index(z, static_cast<zip_uint64_t>(i), 0);
        zip_fread(f, bytes.data(), st.size);
        zip_fclose(f);
        out.emplace_back(st.name, std::move(bytes));
    }
    zip_discard(z);
    return out;
}

// Writes entries as a stored (uncompressed) zip.
void writeZip(const std::string& path, const Entries& entries)
{
    int err = 0;
    zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
    for (const auto& [name, bytes] : entries) {
        zip_source_t* s = zip_source_buffer(z, bytes.data(), bytes.size(), 0);
        const zip_int64_t i = zip_file_add(z, name.c_str(), s, ZIP_FL_OVERWRITE);
        zip_set_file_compression(z, static_cast<zip_uint64_t>(i), ZIP_CM_STORE, 0);
    }
    zip_close(z);
}

std::string& entry(Entries& entries, const std::string& suffix)
{
    for (auto& [name, bytes] : entries) {
        if (name.size() >= suffix.size() &&
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
            return bytes;
        }
    }
    static std::string none;
    return none;
}

bool hasDiagnostic(const Diagnostics& d, const std::string& text)
{
    for (const auto& item : d.items()) {
        if (item.toString().find(text) != std::string::npos) {
            return true;
        }
    }
    return false;
}

// The (op, target) of every node but placeholders and getattrs, in order.
std::vector<std::string> calls(const graph::Graph& g)
{
    std::vector<std::string> out;
    for (const auto& n : g.nodes()) {
        if (n.op == graph::OpKind::CallFunction || n.op == graph::OpKind::Output) {
            out.push_back(std::string(graph::opKindName(n.op)) + " " + n.target);
        }
    }
    return out;
}

std::vector<std::string> placeholderNames(const graph::Graph& g)
{
    std::vector<std::string> out;
    for (const auto id : g.placeholders()) {
        out.push_back(g.node(id).name);
    }
    return out;
}

// `str(graph_signature)`: "name: KIND target='x' persistent=True" lines under # inputs/# outputs.
std::vector<std::string> signatureLines(const std::string& path, const char* section)
{
    auto text = readFile(path);
    std::vector<std::string> out;
    bool in = false;
    for (std::string_view line : split(*text, '\n')) {
        if (startsWith(line, "# ")) {
            in = line == section;
        } else if (in && !trim(line).empty()) {
            out.emplace_back(trim(line));
        }
    }
    return out;
}

std::string kindUpper(std::string_view kind)
{
    std::string s(kind);
    for (auto& c : s) {
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return s;
}

} // namespace

class TestPt2Reader : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void roundTripAgainstPrintedGraph_data()
    {
        QTest::addColumn<QString>("archive");
        QTest::addColumn<QString>("printed");
        QTest::addColumn<QString>("signature");
        for (const char* name : {"gpt2_small", "gpt2_small_cuda", "cnn_bn", "cnn_bn_train",
                                 "mlp_dynamic"}) {
            QTest::newRow(name) << QString::fromStdString(recorded(name + std::string(".pt2")))
                                << QString::fromStdString(recorded(name + std::string("_graph.txt")))
                                << QString::fromStdString(
                                       recorded(name + std::string("_signature.txt")));
        }
        QTest::newRow("small_mlp")
            << QString::fromStdString(data("fixtures/export/small_mlp.pt2"))
            << QString::fromStdString(data("fixtures/export/small_mlp_export_graph.txt"))
            << QString();
    }

    void roundTripAgainstPrintedGraph()
    {
        QFETCH(QString, archive);
        QFETCH(QString, printed);
        QFETCH(QString, signature);
        auto read = io::readPt2(archive.toStdString());
        QVERIFY2(read.ok(), read.ok() ? "" : read.error().toString().c_str());
        QVERIFY2(read->diagnostics.empty(),
                 read->diagnostics.empty() ? "" : read->diagnostics.items()[0].toString().c_str());
        const graph::Graph& g = *read->graph;
        auto text = readFile(printed.toStdString());
        auto expected = io::parseGraphCode(*text, printed.toStdString());
        QVERIFY(expected.graph);
        const graph::Graph& e = *expected.graph;
        QCOMPARE(g.size(), e.size());
        QCOMPARE(placeholderNames(g), placeholderNames(e));
        QCOMPARE(calls(g), calls(e));
        for (const auto& n : e.nodes()) { // same names, same arguments, same metas
            const auto id = g.find(n.name);
            QVERIFY2(id.has_value(), n.name.c_str());
            const graph::Node& m = g.node(*id);
            QCOMPARE(m.args.size(), n.args.size());
            QCOMPARE(m.kwargs.size(), n.kwargs.size());
            for (std::size_t i = 0; i < n.args.size(); ++i) {
                const auto ng = [&](graph::NodeId x) { return e.node(x).name; };
                const auto mg = [&](graph::NodeId x) { return g.node(x).name; };
                QCOMPARE(graph::argumentToString(m.args[i], mg),
                         graph::argumentToString(n.args[i], ng));
            }
            if (n.meta.isTensor()) {
                QVERIFY2(m.meta.isTensor(), n.name.c_str());
                QCOMPARE(m.meta.tensor.dtype, n.meta.tensor.dtype);
                QCOMPARE(m.meta.tensor.sizes, n.meta.tensor.sizes);
                if (n.meta.tensor.strides) {
                    QCOMPARE(m.meta.tensor.strides, n.meta.tensor.strides);
                    QCOMPARE(m.meta.tensor.device, n.meta.tensor.device);
                }
            }
            if (n.source.known()) { // `# File:` is the innermost frame of the stack trace
                QCOMPARE(m.source.file, n.source.file);
                QCOMPARE(m.source.line, n.source.line);
            }
        }
        if (signature.isEmpty()) {
            return;
        }
        const auto inputs = signatureLines(signature.toStdString(), "# inputs");
        const auto& program = *read->program;
        QCOMPARE(program.inputs.size(), inputs.size());
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            const auto& in = program.inputs[i];
            std::string line = in.name + ": " + kindUpper(model::exportInputKindName(in.kind));
            if (!in.target.empty()) {
                line += " target='" + in.target + "'";
            }
            if (in.kind == model::ExportInputKind::Buffer) {
                line += in.persistent ? " persistent=True" : " persistent=False";
            }
            QCOMPARE(line, inputs[i]);
        }
        const auto outputs = signatureLines(signature.toStdString(), "# outputs");
        QCOMPARE(program.outputs.size(), outputs.size());
        for (std::size_t i = 0; i < outputs.size(); ++i) {
            const auto& out = program.outputs[i];
            QCOMPARE(out.name + ": " + kindUpper(model::exportOutputKindName(out.kind)),
                     outputs[i]);
        }
    }

    void moduleTreeFromNnModuleStack()
    {
        auto read = io::readPt2(recorded("gpt2_small.pt2"));
        QVERIFY(read.ok());
        const graph::Graph& g = *read->graph;
        // Checked by hand against the archive's metadata: the in-projection of block 0's
        // attention, and the final head.
        const auto& linear = g.node(*g.find("linear"));
        QCOMPARE(linear.moduleStack.size(), std::size_t(3));
        QCOMPARE(linear.moduleStack[0].path, std::string());
        QCOMPARE(linear.moduleStack[0].type, std::string("__main__.GPT"));
        QCOMPARE(linear.moduleStack[1].path, std::string("blocks.0"));
        QCOMPARE(linear.moduleStack[1].type, std::string("__main__.Block"));
        QCOMPARE(linear.moduleStack[2].key, std::string("L__self__blocks.0.attn"));
        QCOMPARE(linear.moduleStack[2].path, std::string("blocks.0.attn"));
        QCOMPARE(linear.moduleStack[2].type,
                 std::string("torch.nn.modules.activation.MultiheadAttention"));
        const auto& head = g.node(*g.find("linear_8"));
        QCOMPARE(head.moduleStack.size(), std::size_t(2));
        QCOMPARE(head.moduleStack[1].path, std::string("head"));
        for (const auto& n : g.nodes()) { // every call sits in the root module
            if (n.isCallFunction()) {
                QVERIFY2(!n.moduleStack.empty(), n.name.c_str());
                QCOMPARE(n.moduleStack[0].type, std::string("__main__.GPT"));
            }
        }
    }

    void symbolicSizesAndRanges()
    {
        auto read = io::readPt2(recorded("mlp_dynamic.pt2"));
        QVERIFY(read.ok());
        const auto& p = *read->program;
        QCOMPARE(p.schemaMajor, 8);
        QCOMPARE(p.schemaMinor, 17);
        QCOMPARE(p.torchVersion, std::string("2.11.0+cu130"));
        QCOMPARE(p.ranges.size(), std::size_t(1));
        QCOMPARE(p.ranges[0].symbol, std::string("s77"));
        QCOMPARE(*p.ranges[0].min, std::int64_t(2));
        QCOMPARE(*p.ranges[0].max, std::int64_t(64));
        QCOMPARE(p.symbolHints.at("s77"), std::int64_t(8)); // traced with a batch of 8
        const auto& x = read->graph->node(*read->graph->find("x"));
        QCOMPARE(x.meta.text, std::string("f32[s77, 16][16, 1]cpu"));
    }

    void sympyText()
    {
        QCOMPARE(io::sympyToInfix("Symbol('s77', positive=True, integer=True)"),
                 std::string("s77"));
        QCOMPARE(io::sympyToInfix("Mul(Integer(2), Symbol('s0', integer=True))"),
                 std::string("2*s0"));
        QCOMPARE(io::sympyToInfix("Add(Symbol('s0'), Integer(-1))"), std::string("s0 - 1"));
        QCOMPARE(io::sympyToInfix("FloorDiv(Symbol('s0'), Integer(2))"),
                 std::string("(s0//2)"));
        QCOMPARE(io::sympyToInfix("Mul(Integer(4), Add(Symbol('s0'), Integer(1)))"),
                 std::string("4*(s0 + 1)"));
        QCOMPARE(io::sympyToInfix("s0 + 1"), std::string("s0 + 1")); // already infix
        QCOMPARE(io::sympyToInfix("Add(Symbol('s0'"), std::string("Add(Symbol('s0'"));
    }

    void higherOrderBody()
    {
        auto read = io::readPt2(recorded("hop_set_grad.pt2"));
        QVERIFY(read.ok());
        QVERIFY(read->diagnostics.empty());
        const graph::Graph& g = *read->graph;
        // hop_set_grad_export.txt: linear, get_attr, the HOP, getitem, add (+ 3 inputs, output).
        QCOMPARE(g.size(), std::size_t(9));
        const auto& hop = g.node(*g.find("mul"));
        QCOMPARE(hop.target, std::string("higher_order.wrap_with_set_grad_enabled"));
        QVERIFY(hop.multiOutput);
        QCOMPARE(hop.args.size(), std::size_t(3));
        QCOMPARE(hop.args[0].kind, graph::ArgKind::Bool);
        const auto& attr = g.node(hop.args[1].node);
        QCOMPARE(attr.op, graph::OpKind::GetAttr);
        QCOMPARE(attr.target, std::string("submod_1"));
        const auto& item = g.node(*g.find("getitem"));
        QCOMPARE(item.getitemOf, hop.id);
        const auto body = g.submodule("submod_1");
        QVERIFY(body);
        QCOMPARE(body->placeholders().size(), std::size_t(1));
        QCOMPARE(body->node(*body->find("mul")).target, std::string("aten::mul.Tensor"));
        QCOMPARE(body->size(), std::size_t(3));
    }

    // Argument kinds the recorded archives do not use, from the fuzz target's crafted seed.
    void craftedArgumentKinds()
    {
        const std::string path = data("../fuzz/seeds/fuzz_export_json/crafted.json");
        auto text = readFile(path);
        QVERIFY(text.ok());
        const auto r = io::readExportedProgramJson(*text, "crafted.json");
        QVERIFY2(r.diagnostics.empty(),
                 r.diagnostics.empty() ? "" : r.diagnostics.items()[0].toString().c_str());
        const graph::Graph& g = *r.graph;
        const auto names = [&](const graph::Node& n) {
            std::vector<std::string> out;
            for (const auto& a : n.args) {
                out.push_back(graph::argumentToString(a, [&](auto id) { return g.node(id).name; }));
            }
            for (const auto& [k, a] : n.kwargs) {
                out.push_back(k + "=" +
                              graph::argumentToString(a, [&](auto id) { return g.node(id).name; }));
            }
            return out;
        };
        QCOMPARE(placeholderNames(g), (std::vector<std::string>{"x", "c"})); // c: constant input
        QCOMPARE(g.node(*g.find("x")).meta.text, std::string("f32[2*s0, 4][4, 1]cpu"));
        const auto& size = g.node(*g.find("sym_size_int"));
        QCOMPARE(size.target, std::string("aten::sym_size.int"));
        QCOMPARE(size.meta.text, std::string("Sym(2*s0)"));
        QCOMPARE(size.moduleStack.size(), std::size_t(2));
        QCOMPARE(size.moduleStack[1].type, std::string("(x, y).N")); // commas in brackets
        const auto& split = g.node(*g.find("split"));
        QVERIFY(split.multiOutput);
        QCOMPARE(g.node(*g.find("getitem_1")).getitemIndex, 1);
        QCOMPARE(g.node(*g.find("getitem_1")).source.line, 3); // the producer's stack trace
        const auto& to = g.node(*g.find("to"));
        QCOMPARE(names(to), (std::vector<std::string>{
                                "getitem_1", "dtype=torch.bfloat16", "layout=torch.strided",
                                "device=device(type='cuda', index=0)",
                                "memory_format=torch.contiguous_format",
                                "w=[None, getitem]"}));
        QVERIFY(to.annotation);
        QCOMPARE(*to.annotation->get("compile_with_inductor"), std::string("0"));
        const auto& cond = g.node(*g.find("cond"));
        QCOMPARE(names(cond), (std::vector<std::string>{"True", "true_graph_0", "[getitem]"}));
        QCOMPARE(g.node(*g.find("getitem_2")).getitemOf, cond.id);
        QCOMPARE(r.program.inputs[1].kind, model::ExportInputKind::ConstantInput);
        QCOMPARE(r.program.outputs[1].name, std::string("sym_size_int"));
        QVERIFY(!r.program.ranges[0].max);
    }

    void weightIndex()
    {
        auto read = io::readPt2(recorded("cnn_bn.pt2"));
        QVERIFY(read.ok());
        const auto& p = *read->program;
        QCOMPARE(p.layout, std::string("pt2"));
        QCOMPARE(p.weights.size(), std::size_t(16)); // 10 parameters, 6 buffers
        const auto* mean = p.weight("bn1.running_mean");
        QVERIFY(mean);
        QVERIFY(!mean->isParam);
        QVERIFY(!mean->pickled);
        QVERIFY(mean->meta);
        QVERIFY(mean->entry.rfind("cnn_bn/data/weights/weight_", 0) == 0);
        QVERIFY(p.weight("conv1.weight")->isParam);
        const auto* in = p.input("b_bn1_num_batches_tracked");
        QVERIFY(in);
        QCOMPARE(in->kind, model::ExportInputKind::Buffer);
        QCOMPARE(in->target, std::string("bn1.num_batches_tracked"));
    }

    void loaderOpensArchives()
    {
        const auto r = io::loadPaths({recorded("gpt2_small.pt2")});
        QCOMPARE(r.graphs.size(), std::size_t(1));
        QVERIFY(r.diagnostics.empty());
        QCOMPARE(r.graphs[0].kind, std::string("graph"));
        QVERIFY(r.graphs[0].exported);
        QCOMPARE(r.graphs[0].exported->inputs.size(), std::size_t(30));
    }

    // ---- bad archives -------------------------------------------------------------------

    void truncatedArchive()
    {
        auto bytes = readFile(data("fixtures/export/small_mlp.pt2"));
        const std::string path = tempPath("truncated.pt2");
        writeFile(path, bytes->substr(0, bytes->size() / 2));
        auto read = io::readPt2(path);
        QVERIFY(!read.ok());
        QCOMPARE(read.error().code, ErrorCode::Parse);
        QVERIFY(read.error().message.find("not a readable zip archive") != std::string::npos);
        QCOMPARE(read.error().where, path);
        const auto r = io::loadPaths({path}); // the loader says the same, and keeps going
        QVERIFY(!r.readSomething());
        QVERIFY(hasDiagnostic(r.diagnostics, "not a readable zip archive"));
    }

    void corruptEntry()
    {
        auto entries = entriesOf(data("fixtures/export/small_mlp.pt2"));
        const std::string path = tempPath("corrupt.pt2");
        writeZip(path, entries);
        auto bytes = *readFile(path);
        const auto at = bytes.find("\"schema_version\"");
        QVERIFY(at != std::string::npos);
        bytes[at + 1] = 'X'; // the stored data no longer matches its CRC
        writeFile(path, bytes);
        auto read = io::readPt2(path);
        QVERIFY(!read.ok());
        QVERIFY2(read.error().where == path + "!small_mlp/models/model.json",
                 read.error().toString().c_str());
        QVERIFY(read.error().found.find("CRC") != std::string::npos);
    }

    void unknownSchemaVersion()
    {
        auto entries = entriesOf(data("fixtures/export/small_mlp.pt2"));
        std::string& json = entry(entries, "models/model.json");
        const auto at = json.find("\"major\": 8");
        QVERIFY(at != std::string::npos);
        json.replace(at, 10, "\"major\": 99");
        const std::string path = tempPath("schema99.pt2");
        writeZip(path, entries);
        auto read = io::readPt2(path);
        QVERIFY(read.ok());
        QVERIFY(hasDiagnostic(read->diagnostics, "unsupported export schema version 99.17"));
        QVERIFY(hasDiagnostic(read->diagnostics, "small_mlp/models/model.json"));
        QVERIFY(read->graph); // what could be read is kept
        QCOMPARE(read->graph->size(), std::size_t(13));
    }

    void missingWeightFile()
    {
        auto entries = entriesOf(data("fixtures/export/small_mlp.pt2"));
        std::erase_if(entries, [](const auto& e) { return e.first.ends_with("weight_3"); });
        const std::string path = tempPath("noweight.pt2");
        writeZip(path, entries);
        auto read = io::readPt2(path);
        QVERIFY(read.ok());
        QCOMPARE(read->diagnostics.errorCount(), std::size_t(1));
        QVERIFY(hasDiagnostic(read->diagnostics,
                              path + "!small_mlp/data/weights/weight_3: weight file missing"));
        QVERIFY(read->graph); // the graph is kept
        const auto r = io::loadPaths({path});
        QCOMPARE(r.graphs.size(), std::size_t(1));
        QCOMPARE(r.diagnostics.errorCount(), std::size_t(1));
    }

    void malformedProgram()
    {
        auto entries = entriesOf(data("fixtures/export/small_mlp.pt2"));
        entry(entries, "models/model.json") = "{\"schema_version\": {\"major\": 8, ";
        const std::string path = tempPath("badjson.pt2");
        writeZip(path, entries);
        auto read = io::readPt2(path);
        QVERIFY(read.ok());
        QVERIFY(!read->graph);
        QVERIFY(hasDiagnostic(read->diagnostics, "models/model.json: not valid JSON (byte "));
        const auto r = io::loadPaths({path});
        QVERIFY(!r.readSomething());
        QVERIFY(hasDiagnostic(r.diagnostics, "no graph could be read from the archive"));
    }

    void unsupportedArgumentKind()
    {
        auto entries = entriesOf(data("fixtures/export/small_mlp.pt2"));
        std::string& json = entry(entries, "models/model.json");
        const auto at = json.find("{\"as_int\": -1}");
        QVERIFY(at != std::string::npos);
        json.replace(at, 14, "{\"as_future\": -1}");
        const std::string path = tempPath("future.pt2");
        writeZip(path, entries);
        auto read = io::readPt2(path);
        QVERIFY(read.ok());
        QVERIFY(hasDiagnostic(read->diagnostics,
                              "node 'softmax' has an argument of unsupported kind 'as_future'"));
        QVERIFY(read->graph);
        QCOMPARE(read->graph->size(), std::size_t(13));
    }

    void danglingReference()
    {
        auto entries = entriesOf(data("fixtures/export/small_mlp.pt2"));
        std::string& json = entry(entries, "models/model.json");
        const auto at = json.find("{\"name\": \"gelu\"}}, \"kind\": 1}");
        QVERIFY(at != std::string::npos);
        json.replace(at, 16, "{\"name\": \"nope\"}");
        const std::string path = tempPath("dangling.pt2");
        writeZip(path, entries);
        auto read = io::readPt2(path);
        QVERIFY(read.ok());
        QVERIFY(hasDiagnostic(read->diagnostics, "uses 'nope', which no earlier node defines"));
        QVERIFY(read->graph);
    }

    void zipWithoutProgram()
    {
        const std::string path = tempPath("empty.pt2");
        writeZip(path, {{"a/readme.txt", "hello"}});
        auto read = io::readPt2(path);
        QVERIFY(!read.ok());
        QVERIFY(read.error().message.find("holds no torch.export program") != std::string::npos);
        QVERIFY(read.error().found.find("a/readme.txt") != std::string::npos);
    }

    // 20,000 nodes that all want the name "relu" (a 21 KB archive once took 38 s: each name
    // was found by trying relu_1, relu_2, ... from 1): relu, relu_1, ..., relu_19999, with a
    // real node named relu_5 taken first keeping its name and the counter stepping past it.
    void sameNamedNodesGetDistinctNames()
    {
        constexpr std::size_t kNodes = 20000;
        const std::string json = testdata::pt2ProgramJson(kNodes, [](std::size_t i) {
            return i == 1 ? std::string("relu_5") : std::string("relu");
        });
        auto read = io::readPt2Bytes(testdata::pt2Archive(json), "same.pt2");
        QVERIFY2(read.ok(), read.ok() ? "" : read.error().toString().c_str());
        QVERIFY(read->graph);
        const graph::Graph& g = *read->graph;
        QCOMPARE(g.size(), kNodes + 2); // x, the relus, output
        QCOMPARE(g.node(1).name, std::string("relu"));
        QCOMPARE(g.node(2).name, std::string("relu_5"));
        QCOMPARE(g.node(3).name, std::string("relu_1"));
        QCOMPARE(g.node(6).name, std::string("relu_4"));
        QCOMPARE(g.node(7).name, std::string("relu_6")); // relu_5 is taken
        QCOMPARE(g.node(kNodes).name, "relu_" + std::to_string(kNodes - 1));
        std::set<std::string> names;
        for (std::size_t i = 0; i < g.size(); ++i) {
            names.insert(g.node(static_cast<graph::NodeId>(i)).name);
        }
        QCOMPARE(names.size(), g.size());
    }

    // Entries that declare sizes their data cannot hold are refused, not allocated: a program
    // JSON of 40 bytes deflated that claims 900 MiB (under the 1 GiB program cap).
    void programJsonDeclaringMoreThanItHolds()
    {
        const std::string json = testdata::pt2ProgramJson(1, [](std::size_t) {
            return std::string("relu");
        });
        const std::string zip = test::rawZip(
            {test::deflatedEntry("model/models/model.json", json, 900u << 20)});
        auto read = io::readPt2Bytes(zip, "claims.pt2");
        QVERIFY(!read.ok());
        QVERIFY2(read.error().toString().find("of deflated data can hold") != std::string::npos,
                 read.error().toString().c_str());
        // Over the cap it is refused by its declared size alone.
        const std::string huge = test::rawZip(
            {test::deflatedEntry("model/models/model.json", json, 0xfff00000u)});
        read = io::readPt2Bytes(huge, "huge.pt2");
        QVERIFY(!read.ok());
        QCOMPARE(read.error().code, ErrorCode::Unsupported);
        QVERIFY2(read.error().toString().find("more than the limit of 1.0 GiB") !=
                     std::string::npos,
                 read.error().toString().c_str());
    }

private:
    std::string tempPath(const char* name) { return m_dir.filePath(name).toStdString(); }

    static void writeFile(const std::string& path, const std::string& bytes)
    {
        QFile f(QString::fromStdString(path));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes.data(), static_cast<qint64>(bytes.size()));
    }

    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestPt2Reader)
#include "tst_pt2_reader.moc"

FXSCOPE_TEST_END
