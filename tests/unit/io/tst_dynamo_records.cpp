// The Dynamo records of a TORCH_TRACE run (recompile_reasons, dynamo_graph_break_reason,
// create_symbol, guard_added_fast, describe_tensor/source, dynamo_start), the guard tree reader
// and graphs parsed on demand, on the round-2 recordings (PyTorch 2.11). Expected values were
// read by hand from the logs (zcat + grep of the envelopes, their payload lines), e.g.
//   recompile.log.gz:4071  recompile_reasons 0/1: "0/0: tensor 'x' size mismatch at index 0.
//                          expected 8, actual 16" (plain text, not a JSON list);
//   recompile.log.gz:8193  recompile_reasons 0/2: a JSON list of two reasons (0/1 on 'w', 0/0
//                          on 'x', both "dtype mismatch. expected Float, actual Half");
//   recompile.log.gz:4132  create_symbol s77 = 16 for L['x'].size()[0], range [2, int_oo],
//                          user frame record.py:71 "return torch.nn.functional.gelu(...)";
//   graph_break.log.gz:56  break at record.py:80, print("step"); :4087 at :81, the branch.
#include "core/io/guard_tree_parser.h"
#include "core/io/torch_trace_reader.h"
#include "tests/test_file.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;

namespace {

const std::string kRecorded = FXSCOPE_TEST_DATA "/recorded/traces/";
const std::string kRecord = "/home/user/demo/record.py";

io::TraceReadResult readRecorded(const std::string& name, bool parseGraphs = false)
{
    io::TraceReadOptions options;
    options.parseGraphs = parseGraphs;
    auto r = io::readTorchTracePath(kRecorded + name, options);
    if (!r.readSomething) {
        qFatal("recorded trace %s could not be read", name.c_str());
    }
    return r;
}

// A one-record log: glog prefix, envelope, optional payload lines.
std::string record(const std::string& envelope, const std::vector<std::string>& payload = {})
{
    std::string s = "V1123 18:11:38.573000 475 torch/_dynamo/guards.py:4764] " + envelope + "\n";
    for (const auto& line : payload) {
        s += "\t" + line + "\n";
    }
    return s;
}

} // namespace

class TestDynamoRecords : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void recompileReasonsAsLogged()
    {
        const auto r = readRecorded("recompile.log.gz");
        const auto& rr = r.run.recompileReasons;
        QCOMPARE(rr.size(), std::size_t(2));
        QCOMPARE(rr[0].origin.compileId.toString(), std::string("0/1"));
        QCOMPARE(rr[0].origin.line, 4071);
        QCOMPARE(rr[0].reasons, std::vector<std::string>{
                                    "0/0: tensor 'x' size mismatch at index 0. expected 8, actual 16"});
        QCOMPARE(rr[1].origin.compileId.toString(), std::string("0/2"));
        QCOMPARE(rr[1].origin.line, 8193);
        QCOMPARE(rr[1].reasons,
                 (std::vector<std::string>{"0/1: tensor 'w' dtype mismatch. expected Float, actual Half",
                                           "0/0: tensor 'x' dtype mismatch. expected Float, actual Half"}));
    }

    void symbolsGuardsAndInputs()
    {
        const auto r = readRecorded("recompile.log.gz");
        QCOMPARE(r.run.symbols.size(), std::size_t(2));
        const auto& s = r.run.symbols[0];
        QCOMPARE(s.origin.compileId.toString(), std::string("0/1"));
        QCOMPARE(s.origin.line, 4132);
        QCOMPARE(s.symbol, std::string("s77"));
        QCOMPARE(s.value, std::string("16"));
        QCOMPARE(s.range, std::string("[2, int_oo]"));
        QCOMPARE(s.source, std::string("L['x'].size()[0]"));
        QCOMPARE(s.userStack.size(), std::size_t(1));
        QCOMPARE(s.userStack[0].file, kRecord); // interned string 1
        QCOMPARE(s.userStack[0].line, 71);
        QCOMPARE(s.userStack[0].name, std::string("fn"));
        QCOMPARE(s.userStack[0].code,
                 std::string("return torch.nn.functional.gelu(x @ w).sum(-1)"));
        QCOMPARE(r.run.symbols[1].value, std::string("32"));

        QCOMPARE(r.run.shapeGuards.size(), std::size_t(4));
        QCOMPARE(r.run.shapeGuards[0].origin.line, 5919);
        QCOMPARE(r.run.shapeGuards[0].kind, std::string("guard_added_fast"));
        QCOMPARE(r.run.shapeGuards[0].expr, std::string("32*s77 <= 2147483647"));
        QCOMPARE(r.run.shapeGuards[1].expr, std::string("s77 <= 2147483647"));

        // Two inputs per compile, each named by the describe_source after it.
        QCOMPARE(r.run.tensors.size(), std::size_t(6));
        const auto& x = r.run.tensors[0];
        QCOMPARE(x.source, std::string("L['x']"));
        QCOMPARE(x.dtype, std::string("torch.float32"));
        QCOMPARE(x.size, (std::vector<std::string>{"8", "32"}));
        QCOMPARE(x.stride, (std::vector<std::string>{"32", "1"}));
        QCOMPARE(r.run.tensors[2].size, (std::vector<std::string>{"16", "32"}));
        QCOMPARE(r.run.tensors[5].source, std::string("L['w']"));
        QCOMPARE(r.run.tensors[5].dtype, std::string("torch.float16"));

        QCOMPARE(r.run.dynamoStarts.size(), std::size_t(3));
        const auto& start = r.run.dynamoStarts[2].stack;
        QCOMPARE(start.back().line, 70);
        QCOMPARE(start.back().name, std::string("fn"));
        QCOMPARE(start.front().line, 76);
    }

    void graphBreaksReadApart()
    {
        const auto r = readRecorded("graph_break.log.gz");
        QCOMPARE(r.run.graphBreaks.size(), std::size_t(2));
        const auto& print = r.run.graphBreaks[0];
        QCOMPARE(print.origin.line, 56);
        QCOMPARE(print.origin.compileId.toString(), std::string("0/0"));
        QCOMPARE(print.reason, std::string("Failed to trace builtin operator"));
        QCOMPARE(print.explanation,
                 std::string("Dynamo does not know how to trace builtin operator `print` with "
                             "argument types ['str'] (has_kwargs False)"));
        QCOMPARE(print.hints.size(), std::size_t(3));
        QCOMPARE(print.atFile, kRecord);
        QCOMPARE(print.atLine, 80);
        QCOMPARE(print.userStack.size(), std::size_t(4));
        QCOMPARE(print.userStack.back().line, 80);
        QCOMPARE(print.userStack.back().name, std::string("fn"));
        QCOMPARE(print.userStack.back().code, std::string("print(\"step\")"));
        QCOMPARE(print.userStack.front().line, 85);

        const auto& branch = r.run.graphBreaks[1];
        QCOMPARE(branch.origin.line, 4087);
        QCOMPARE(branch.origin.compileId.toString(), std::string("1/0"));
        QCOMPARE(branch.reason, std::string("Data-dependent branching"));
        QCOMPARE(branch.atLine, 81);
        QCOMPARE(branch.userStack.back().code, std::string("if y.sum() > 0:"));
        QCOMPARE(branch.hints.size(), std::size_t(2));
    }

    void guardTree()
    {
        const auto r = readRecorded("recompile.log.gz");
        const model::TextArtifact* guards = nullptr;
        for (const auto& t : r.run.texts) {
            if (t.kind == "dynamo_cpp_guards_str" && t.compileId.toString() == "0/1") {
                guards = &t;
            }
        }
        QVERIFY(guards);
        const auto entries = io::parseGuardTree(guards->text);
        const model::GuardEntry* xMatch = nullptr;
        const model::GuardEntry* lambda = nullptr;
        for (const auto& g : entries) {
            if (g.kind == "TENSOR_MATCH" && g.source == "L['x']") {
                xMatch = &g;
            }
            if (g.kind == "LAMBDA_GUARD" && g.depth == 0 && !lambda) {
                lambda = &g;
            }
        }
        QVERIFY(xMatch);
        QCOMPARE(xMatch->depth, 2);
        QVERIFY(xMatch->expr.find("size=[None, 32]") != std::string::npos);
        QCOMPARE(xMatch->userCode, std::string("return torch.nn.functional.gelu(x @ w).sum(-1)"));
        QCOMPARE(xMatch->file, std::string("ome/user/demo/record.py")); // cut as PyTorch logs it
        QCOMPARE(xMatch->line, 71);
        QCOMPARE(xMatch->function, std::string("fn"));
        QVERIFY(lambda);
        QCOMPARE(lambda->expr, std::string("32*L['x'].size()[0] <= 2147483647"));
        QCOMPARE(lambda->file, std::string("_inductor/codegen/simd.py"));
        QCOMPARE(lambda->line, 1877);
    }

    void guardTreeTolerance()
    {
        QVERIFY(io::parseGuardTree("").empty());
        QVERIFY(io::parseGuardTree("not a guard tree\n| | | |\n+-").empty());
        const auto g = io::parseGuardTree("| | +- \n+- : x  # \n+- KIND: a  # b  # c:notanumber");
        QCOMPARE(g.size(), std::size_t(3));
        QCOMPARE(g[2].kind, std::string("KIND"));
        QCOMPARE(g[2].line, 0);
    }

    void graphsParsedOnDemand()
    {
        auto lazy = readRecorded("recompile.log.gz", false);
        const auto eager = readRecorded("recompile.log.gz", true);
        QCOMPARE(lazy.run.graphs.size(), eager.run.graphs.size());
        QVERIFY(!lazy.run.graphs.empty());
        for (std::size_t i = 0; i < lazy.run.graphs.size(); ++i) {
            auto& g = lazy.run.graphs[i];
            QVERIFY(!g.graph);
            QVERIFY(!g.code.empty());
            QVERIFY(g.payloadLines > 0);
            Diagnostics d;
            io::ensureGraph(g, d);
            QVERIFY(g.graph);
            QCOMPARE(g.graph->size(), eager.run.graphs[i].graph->size());
            QCOMPARE(g.statements, eager.run.graphs[i].statements);
        }
    }

    void payloadRefStripsTabs()
    {
        const std::string log = record(R"({"dynamo_output_graph": {}, "has_payload": "x"})",
                                       {"class GraphModule(torch.nn.Module):",
                                        "    def forward(self, x):", "        return (x,)"});
        io::TraceReadOptions options;
        options.parseGraphs = false;
        options.verifyPayloads = false;
        const auto owned = std::make_shared<const std::string>(log);
        const auto shared = io::readTorchTrace(owned, "t.log", options);
        const auto copied = io::readTorchTrace(std::string_view(log), "t.log", options);
        const std::string expected =
            "class GraphModule(torch.nn.Module):\n    def forward(self, x):\n        return (x,)";
        QCOMPARE(shared.run.graphs.at(0).code.text(), expected);
        QCOMPARE(shared.run.graphs.at(0).code.buffer.get(), owned.get()); // no copy
        QCOMPARE(copied.run.graphs.at(0).code.text(), expected);
        QCOMPARE(copied.run.graphs.at(0).code.firstLine, 2);
    }

    void brokenRecordsAreDiagnosed()
    {
        std::string log = record(R"({"create_symbol": [1, 2], "frame_id": 0, "frame_compile_id": 1})");
        log += record(R"({"create_symbol": {"symbol": 7, "source": "L['x']"}})");
        log += record(R"({"describe_source": {"describer_id": 9, "id": 9, "source": "L['q']"}})");
        log += record(R"({"dynamo_start": {"stack": "nope"}})");
        io::TraceReadOptions options;
        options.verifyPayloads = false;
        const auto r = io::readTorchTrace(std::string_view(log), "bad.log", options);
        QVERIFY(r.readSomething);
        QCOMPARE(r.run.symbols.size(), std::size_t(2)); // kept, with what could be read
        QCOMPARE(r.run.symbols[1].source, std::string("L['x']"));
        QVERIFY(r.run.symbols[1].symbol.empty());
        QVERIFY(r.run.tensors.empty()); // a source for no described tensor is dropped
        QCOMPARE(r.run.dynamoStarts.size(), std::size_t(1));
        QCOMPARE(r.diagnostics.items().size(), std::size_t(3));
        QCOMPARE(r.diagnostics.items()[0].line, 1);
        QCOMPARE(r.diagnostics.items()[1].line, 2);
        QCOMPARE(r.diagnostics.items()[2].line, 4);
    }

    void recompileReasonTextForms()
    {
        std::string log = record(R"({"artifact": {"name": "recompile_reasons", "encoding": "json"}, "frame_id": 0, "frame_compile_id": 1, "has_payload": "x"})",
                                 {"[", "\"0/0: L['n'] == 3\"", "]"});
        log += record(R"({"artifact": {"name": "recompile_reasons", "encoding": "json"}, "has_payload": "x"})",
                      {"[\"unterminated", "", "second line"});
        io::TraceReadOptions options;
        options.verifyPayloads = false;
        const auto r = io::readTorchTrace(std::string_view(log), "r.log", options);
        QCOMPARE(r.run.recompileReasons.size(), std::size_t(2));
        QCOMPARE(r.run.recompileReasons[0].reasons, std::vector<std::string>{"0/0: L['n'] == 3"});
        // Not a JSON list: read as lines.
        QCOMPARE(r.run.recompileReasons[1].reasons,
                 (std::vector<std::string>{"[\"unterminated", "second line"}));
    }
};

QTEST_GUILESS_MAIN(TestDynamoRecords)
#include "tst_dynamo_records.moc"

FXSCOPE_TEST_END
