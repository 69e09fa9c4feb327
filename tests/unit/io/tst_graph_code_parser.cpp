// Printed graph code importer: every fixture graph file and TORCH_TRACE graph payload (node
// counts checked against an independent line count), spot checks by hand, each syntax form,
// literals, metas, and malformed input (diagnostics with file:line, partial results).
#include "core/io/graph_code_parser.h"
#include "tests/test_file.h"

#include "graph_code_fixtures.h"

#include <QtTest>

#include <cmath>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::graph;

namespace {

const Node& nodeNamed(const Graph& g, std::string_view name)
{
    const auto id = g.find(name);
    if (!id) {
        qFatal("no node named %s", std::string(name).c_str());
    }
    return g.node(*id);
}

std::vector<std::string> nodeNames(const Graph& g)
{
    std::vector<std::string> names;
    for (const auto& n : g.nodes()) {
        names.push_back(n.name);
    }
    return names;
}

std::string argText(const Graph& g, const Argument& a)
{
    const std::vector<std::string> names = nodeNames(g);
    return argumentToString(a, names);
}

io::GraphCodeResult parse(const std::string& text, int firstLine = 1)
{
    return io::parseGraphCode(text, "inline.py", firstLine);
}

bool hasError(const io::GraphCodeResult& r, int line, const std::string& messagePart)
{
    for (const auto& d : r.diagnostics.items()) {
        if (d.severity == Severity::Error && d.line == line && d.file == "inline.py" &&
            d.message.find(messagePart) != std::string::npos) {
            return true;
        }
    }
    return false;
}

std::size_t totalNodes(const Graph& g)
{
    std::size_t n = g.size();
    for (const auto& s : g.submodules()) {
        n += totalNodes(*s);
    }
    return n;
}

void checkClean(const io::GraphCodeResult& r, int expectedNodes)
{
    for (const auto& d : r.diagnostics.items()) {
        qWarning("%s", d.toString().c_str());
    }
    QVERIFY(r.graph);
    QCOMPARE(r.unparsedLines, 0);
    QVERIFY(r.diagnostics.empty());
    QCOMPARE(r.statements, expectedNodes);
    QCOMPARE(int(totalNodes(*r.graph)), expectedNodes);
}

} // namespace

class TestGraphCodeParser : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void fixtureGraphFiles_data()
    {
        QTest::addColumn<QString>("path");
        const QStringList files = fxs_test::graphFixtureFiles();
        QCOMPARE(files.size(), 9);
        for (const QString& f : files) {
            QTest::newRow(qPrintable(QFileInfo(f).fileName())) << f;
        }
    }

    void fixtureGraphFiles()
    {
        QFETCH(QString, path);
        const QString text = fxs_test::readText(path);
        QVERIFY(!text.isEmpty());
        const auto r = io::parseGraphCode(text.toStdString(), path.toStdString());
        checkClean(r, fxs_test::countStatementsIndependently(text));
        QCOMPARE(r.graph->sourcePath(), path.toStdString());
        QCOMPARE(r.graph->text(), text.toStdString());
        QVERIFY(r.graph->outputNode() != kNoNode);
    }

    void tracePayloads()
    {
        std::vector<fxs_test::Payload> graphs;
        std::vector<fxs_test::Payload> gms;
        fxs_test::tracePayloads(graphs, gms);
        // Counted with grep over the envelopes: 74 graph payloads, 18 `gm` key components.
        QCOMPARE(int(graphs.size()), 74);
        QCOMPARE(int(gms.size()), 18);
        for (const auto* list : {&graphs, &gms}) {
            for (const auto& p : *list) {
                const auto r = io::parseGraphCode(p.text, "trace.log", p.firstLine, false);
                const int expected = fxs_test::countStatementsIndependently(QString::fromStdString(p.text));
                if (!r.graph || r.unparsedLines != 0 || !r.diagnostics.empty() || r.statements != expected) {
                    QFAIL(qPrintable(p.where + ": nodes " + QString::number(r.statements) +
                                     " expected " + QString::number(expected)));
                }
                QVERIFY(r.graph->text().empty()); // keepText = false
            }
        }
    }

    void traceJointGraphLinesAndAot()
    {
        // basic_cold: the aot_joint_graph envelope is line 893, its payload lines 894..926.
        std::vector<fxs_test::Payload> graphs;
        std::vector<fxs_test::Payload> gms;
        fxs_test::tracePayloads(graphs, gms);
        const fxs_test::Payload* joint = nullptr;
        for (const auto& p : graphs) {
            if (p.where.startsWith("basic_cold/") && p.where.endsWith("aot_joint_graph")) {
                joint = &p;
            }
        }
        QVERIFY(joint);
        QCOMPARE(joint->firstLine, 894);
        const auto r = io::parseGraphCode(joint->text, "basic_cold.log", joint->firstLine);
        const Graph& g = *r.graph;
        QCOMPARE(g.name(), std::string("inner_f"));
        QCOMPARE(g.placeholders().size(), std::size_t(3)); // primals_1, primals_2, tangents_1
        const Node& t1 = nodeNamed(g, "tangents_1");
        QCOMPARE(t1.line, 902);
        QVERIFY(t1.aot);
        QCOMPARE(t1.aot->kind, std::string("TangentAOTInput"));
        QCOMPARE(t1.aot->idx, 0);
        QCOMPARE(nodeNamed(g, "primals_2").aot->idx, 1);
        QVERIFY(!g.find("primals") && !g.find("tangents"));
        const Node& mm = nodeNamed(g, "mm");
        QCOMPARE(mm.line, 906);
        QCOMPARE(mm.target, std::string("aten::mm.default"));
        QCOMPARE(mm.source.line, 23);
        QCOMPARE(mm.source.function, std::string("fn"));
        QCOMPARE(mm.source.code, std::string("return (x.sin() @ y).relu() * 2"));
        const Node& out = g.node(g.outputNode());
        QCOMPARE(out.line, 921);
        QCOMPARE(argText(g, out.args[0]), std::string("(mul, mul_2, mm_1)"));
        QCOMPARE(out.outputAot.size(), std::size_t(3));
        QCOMPARE(out.outputAot[2]->text, std::string("GradAOTOutput(grad_of=PlainAOTInput(idx=1))"));
        QCOMPARE(out.outputAot[2]->idx, 1);
        const Node& st = nodeNamed(g, "scalar_tensor");
        QCOMPARE(st.kwarg("dtype")->dtype, DType::Float32);
        QCOMPARE(st.kwarg("layout")->kind, ArgKind::Layout);
        QCOMPARE(st.kwarg("device")->device, (Device{"cuda", 0}));
        QCOMPARE(st.meta.tensor.sizes.size(), std::size_t(0));
    }

    void gpt2AnnotatedSpotChecks()
    {
        const QString path = fxs_test::fixture("graphs/gpt2_annotated_fw.txt");
        const auto r = io::parseGraphCode(fxs_test::readText(path).toStdString(), "fw.txt");
        const Graph& g = *r.graph;
        QCOMPARE(g.placeholders().size(), std::size_t(30));
        const Node& gi = nodeNamed(g, "getitem_2"); // line 10: native_layer_norm[2]
        QCOMPARE(gi.line, 10);
        QCOMPARE(gi.target, std::string("operator.getitem"));
        QCOMPARE(gi.args[0].node, *g.find("native_layer_norm"));
        QCOMPARE(gi.args[1].i, std::int64_t(2));
        QCOMPARE(gi.getitemOf, *g.find("native_layer_norm"));
        QCOMPARE(gi.getitemIndex, 2);
        QVERIFY(g.node(gi.getitemOf).multiOutput);
        QCOMPARE(g.node(gi.getitemOf).meta.kind, ValueMeta::Kind::None);
        const TensorMeta* m = gi.tensorMeta();
        QVERIFY(m);
        QCOMPARE(m->dtype, DType::Float32);
        QCOMPARE(m->sizes, (std::vector<SymInt>{SymInt::of(4), SymInt::of(64), SymInt::of(1)}));
        QCOMPARE(*m->strides, (std::vector<SymInt>{SymInt::of(64), SymInt::of(1), SymInt::of(1)}));
        QCOMPARE(m->device->toString(), std::string("cuda:0"));
        QCOMPARE(gi.source.line, 24);

        const Node& emb = nodeNamed(g, "embedding"); // line 4
        QCOMPARE(emb.line, 4);
        QCOMPARE(emb.source.file, std::string("/home/user/demo/models.py"));
        QCOMPARE(emb.source.line, 35);
        QCOMPARE(emb.source.function, std::string("forward"));
        QCOMPARE(emb.source.code, std::string("x = s.emb(idx)"));
        QVERIFY(!emb.annotation);

        const Node& ln1 = nodeNamed(g, "native_layer_norm_1"); // line 51, under an Annotation
        QCOMPARE(ln1.line, 51);
        QVERIFY(ln1.annotation);
        QCOMPARE(*ln1.annotation->get("compile_with_inductor"), std::string("0"));
        QCOMPARE(ln1.annotation->text, std::string("{'compile_with_inductor': 0}"));
        QCOMPARE(ln1.source.function, std::string("mlp"));
        QCOMPARE(ln1.args[4].f, 1e-05);
        QCOMPARE(argText(g, ln1.args[1]), std::string("[256]"));
        int annotated = 0;
        for (const auto& n : g.nodes()) {
            annotated += n.annotation ? 1 : 0;
        }
        QVERIFY(annotated > 10);
        QCOMPARE(g.returnedNodes().size(), std::size_t(61));
        const Node& clone = nodeNamed(g, "clone");
        QCOMPARE(clone.kwarg("memory_format")->kind, ArgKind::MemoryFormat);
        QCOMPARE(clone.kwarg("memory_format")->text, std::string("contiguous_format"));
    }

    void opKinds()
    {
        const std::string text = R"PY(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4, 4]", L_y_: "f32[4, 4]"):
        l_x_ = L_x_
        l_y_ = L_y_
        sin: "f32[4, 4]" = torch.sin(l_x_);  l_x_ = None
        matmul: "f32[4, 4]" = sin @ l_y_;  sin = l_y_ = None
        relu: "f32[4, 4]" = matmul.relu();  matmul = None
        view = relu.view(-1, 2)
        first = view[0]
        part = view[0:2]
        cols = view[:, 1]
        neg = -relu
        inv = ~relu
        sub = relu - 1
        div = relu / 2
        fdiv = relu // 2
        mod = relu % 2
        pow_1 = relu ** 2
        lt = relu < 0
        ge = relu >= 0
        eq = relu == 0
        shape = relu.shape
        weight = self.weight
        sub_out = self.submod_0(relu, weight)
        gelu = torch.nn.functional.gelu(relu, approximate = 'tanh')
        grad = torch._C._set_grad_enabled(False)
        add = torch.ops.prims.convert_element_type.default(relu, torch.float16)
        ar = torch.ops._c10d_functional.all_reduce.default(add, 'sum', '0')
        hop = torch.ops.higher_order.invoke_subgraph(weight, 'sub', relu)
        return (neg, add, ar)
)PY";
        const auto r = parse(text);
        checkClean(r, 2 + 25 + 1);
        const Graph& g = *r.graph;
        const Node& x = g.node(g.placeholders()[0]);
        QCOMPARE(x.name, std::string("l_x_"));
        QCOMPARE(x.target, std::string("L_x_"));
        QCOMPARE(nodeNamed(g, "sin").target, std::string("torch.sin"));
        QCOMPARE(nodeNamed(g, "sin").args[0].node, x.id);
        QCOMPARE(nodeNamed(g, "matmul").target, std::string("operator.matmul"));
        const Node& relu = nodeNamed(g, "relu");
        QCOMPARE(relu.op, OpKind::CallMethod);
        QCOMPARE(relu.target, std::string("relu"));
        QCOMPARE(relu.args.size(), std::size_t(1));
        QCOMPARE(relu.args[0].node, *g.find("matmul"));
        QCOMPARE(argText(g, Argument::tuple(nodeNamed(g, "view").args)), std::string("(relu, -1, 2)"));
        QCOMPARE(nodeNamed(g, "first").target, std::string("operator.getitem"));
        QCOMPARE(nodeNamed(g, "part").args[1].text, std::string("slice(0, 2, None)"));
        QCOMPARE(argText(g, nodeNamed(g, "cols").args[1]), std::string("(slice(None, None, None), 1)"));
        const std::pair<const char*, const char*> ops[] = {
            {"neg", "operator.neg"}, {"inv", "operator.invert"}, {"sub", "operator.sub"},
            {"div", "operator.truediv"}, {"fdiv", "operator.floordiv"}, {"mod", "operator.mod"},
            {"pow_1", "operator.pow"}, {"lt", "operator.lt"}, {"ge", "operator.ge"},
            {"eq", "operator.eq"}, {"shape", "builtins.getattr"}};
        for (const auto& [name, target] : ops) {
            QCOMPARE(nodeNamed(g, name).target, std::string(target));
        }
        QCOMPARE(nodeNamed(g, "shape").args[1].text, std::string("shape"));
        QCOMPARE(nodeNamed(g, "weight").op, OpKind::GetAttr);
        QCOMPARE(nodeNamed(g, "weight").target, std::string("weight"));
        QCOMPARE(nodeNamed(g, "sub_out").op, OpKind::CallModule);
        QCOMPARE(nodeNamed(g, "sub_out").target, std::string("submod_0"));
        QCOMPARE(nodeNamed(g, "gelu").target, std::string("torch.nn.functional.gelu"));
        QCOMPARE(nodeNamed(g, "gelu").kwarg("approximate")->text, std::string("tanh"));
        QCOMPARE(nodeNamed(g, "grad").target, std::string("torch._C._set_grad_enabled"));
        QCOMPARE(nodeNamed(g, "add").target, std::string("prims::convert_element_type.default"));
        QCOMPARE(nodeNamed(g, "add").args[1].dtype, DType::Float16);
        QCOMPARE(nodeNamed(g, "ar").target, std::string("_c10d_functional::all_reduce.default"));
        QCOMPARE(nodeNamed(g, "hop").target, std::string("higher_order.invoke_subgraph"));
        QCOMPARE(g.returnedNodes().size(), std::size_t(3));
    }

    void unusualSpellings()
    {
        // Spaces inside dotted names, parenthesized bases, a continuation line with a comment.
        const auto r = parse("def forward(self, x):\n"
                             "    a = torch . ops . aten . sin . default(x)\n"
                             "    b = (x).relu()\n"
                             "    c = torch.ops.aten.cat.default([a,\n"
                             "        # a comment inside the brackets\n"
                             "        b], 0)\n"
                             "    return (a, b, c)\n");
        checkClean(r, 5);
        QCOMPARE(nodeNamed(*r.graph, "a").target, std::string("aten::sin.default"));
        QCOMPARE(nodeNamed(*r.graph, "b").op, OpKind::CallMethod);
        QCOMPARE(nodeNamed(*r.graph, "b").args[0].node, r.graph->placeholders()[0]);
        QCOMPARE(argText(*r.graph, nodeNamed(*r.graph, "c").args[0]), std::string("[a, b]"));
        QCOMPARE(nodeNamed(*r.graph, "c").line, 4);
        QCOMPARE(r.graph->node(r.graph->outputNode()).line, 7);
    }

    void crlfAndFormFeeds()
    {
        QString text = fxs_test::readText(fxs_test::fixture("graphs/gpt2_annotated_fw.txt"));
        const int expected = fxs_test::countStatementsIndependently(text);
        text.replace("\n", "\r\n");
        const auto r = parse(text.toStdString());
        checkClean(r, expected);
        QVERIFY(nodeNamed(*r.graph, "embedding").statement.find('\r') == std::string::npos);
        checkClean(parse("def forward(self, x):\n    \f\n        \f  \n    return x\n"), 2);
    }

    void commentGroups()
    {
        const auto r = parse(
            "def forward(self, x):\n"
            "    # Annotation: {'compile_with_inductor': {'inductor_configs': {'max_autotune': True}}, 'tag': 'a, b'} "
            "File: C:/src/m.py:12 in f, code: y = g(x, 'in ') # not a comment\n"
            "    a = x.sin()\n"
            "    b = x.cos()\n"
            "\n"
            "    c = x.tan()\n"
            "    # File: /m.py:3 in h, code: z = 1\n"
            "    d = x.abs()\n"
            "    # No stacktrace found for following nodes\n"
            "    e = x.neg()\n"
            "    # Annotation: {'compile_with_inductor': 0}\n"
            "    f = x.exp()\n"
            "    # some other comment\n"
            "    g = x.log()\n"
            "    return (a, b, c, d, e, f, g)\n");
        checkClean(r, 9);
        const Graph& g = *r.graph;
        const Node& a = nodeNamed(g, "a");
        QCOMPARE(a.source.file, std::string("C:/src/m.py"));
        QCOMPARE(a.source.line, 12);
        QCOMPARE(a.source.function, std::string("f"));
        QCOMPARE(a.source.code, std::string("y = g(x, 'in ') # not a comment"));
        QVERIFY(a.annotation);
        QCOMPARE(a.annotation->entries.size(), std::size_t(2));
        QCOMPARE(*a.annotation->get("compile_with_inductor"),
                 std::string("{'inductor_configs': {'max_autotune': True}}"));
        QCOMPARE(*a.annotation->get("tag"), std::string("'a, b'"));
        QCOMPARE(nodeNamed(g, "b").source.line, 12); // same group
        QVERIFY(nodeNamed(g, "b").annotation);
        QVERIFY(!nodeNamed(g, "c").source.known()); // a blank line ends the group
        QVERIFY(!nodeNamed(g, "c").annotation);
        QCOMPARE(nodeNamed(g, "d").source.file, std::string("/m.py"));
        QVERIFY(!nodeNamed(g, "d").annotation);
        QVERIFY(!nodeNamed(g, "e").source.known());
        QVERIFY(!nodeNamed(g, "f").source.known());
        QCOMPARE(*nodeNamed(g, "f").annotation->get("compile_with_inductor"), std::string("0"));
        QVERIFY(!nodeNamed(g, "g").annotation && !nodeNamed(g, "g").source.known());
        QVERIFY(!g.node(g.outputNode()).source.known());
    }

    void literals()
    {
        const std::string text = R"PY(def forward(self, x):
    y = torch.ops.aten.foo.default(x, 1, -2, 1.5, 1e-05, -3.0e2, inf, -inf, nan, True, False, None, 'a\'b', "dq", [1, 2], (3,), (), [], torch.bfloat16, device(type='cuda', index=1), device(type='cpu'), torch.strided, torch.channels_last, torch.preserve_format, slice(None, None, None), Ellipsis, torch.sym_float, 123456789012345, {'k': 1})
    return y
)PY";
        const auto r = parse(text);
        checkClean(r, 3);
        const Graph& g = *r.graph;
        const auto& a = nodeNamed(g, "y").args;
        QCOMPARE(a.size(), std::size_t(29));
        QCOMPARE(a[0].node, g.placeholders()[0]);
        QCOMPARE(a[1].kind, ArgKind::Int);
        QCOMPARE(a[1].i, std::int64_t(1));
        QCOMPARE(a[2].i, std::int64_t(-2));
        QCOMPARE(a[3].f, 1.5);
        QCOMPARE(a[4].f, 1e-05);
        QCOMPARE(a[5].f, -300.0);
        QVERIFY(std::isinf(a[6].f) && a[6].f > 0);
        QVERIFY(std::isinf(a[7].f) && a[7].f < 0);
        QVERIFY(std::isnan(a[8].f));
        QCOMPARE(a[9].kind, ArgKind::Bool);
        QVERIFY(a[9].b && !a[10].b);
        QCOMPARE(a[11].kind, ArgKind::None);
        QCOMPARE(a[12].text, std::string("a'b"));
        QCOMPARE(a[13].text, std::string("dq"));
        QCOMPARE(a[14].kind, ArgKind::List);
        QCOMPARE(a[14].items.size(), std::size_t(2));
        QCOMPARE(a[15].kind, ArgKind::Tuple);
        QCOMPARE(a[15].items.size(), std::size_t(1));
        QCOMPARE(a[16].kind, ArgKind::Tuple);
        QCOMPARE(a[16].items.size(), std::size_t(0));
        QCOMPARE(a[17].kind, ArgKind::List);
        QCOMPARE(a[18].dtype, DType::BFloat16);
        QCOMPARE(a[19].device, (Device{"cuda", 1}));
        QCOMPARE(a[20].device, (Device{"cpu", -1}));
        QCOMPARE(a[21].kind, ArgKind::Layout);
        QCOMPARE(a[21].text, std::string("strided"));
        QCOMPARE(a[22].kind, ArgKind::MemoryFormat);
        QCOMPARE(a[22].text, std::string("channels_last"));
        QCOMPARE(a[23].text, std::string("preserve_format"));
        QCOMPARE(a[24].kind, ArgKind::Expr);
        QCOMPARE(a[24].text, std::string("slice(None, None, None)"));
        QCOMPARE(a[25].kind, ArgKind::Expr);
        QCOMPARE(a[25].text, std::string("Ellipsis"));
        QCOMPARE(a[26].kind, ArgKind::Expr);
        QCOMPARE(a[26].text, std::string("torch.sym_float"));
        QCOMPARE(a[27].i, std::int64_t(123456789012345));
        QCOMPARE(a[28].kind, ArgKind::Expr);
        QCOMPARE(a[28].text, std::string("{'k': 1}"));
    }

    void valueMetas()
    {
        auto m = io::parseValueMeta("f32[s0, 2*s1, s0 + 1][2*s1, 1, 1]cuda:0");
        QCOMPARE(m.kind, ValueMeta::Kind::Tensor);
        QCOMPARE(m.tensor.sizes,
                 (std::vector<SymInt>{SymInt::symbol("s0"), SymInt::symbol("2*s1"), SymInt::symbol("s0 + 1")}));
        QCOMPARE(m.tensor.strides->at(0), SymInt::symbol("2*s1"));
        QCOMPARE(m.tensor.strides->at(1), SymInt::of(1));
        QVERIFY(m.tensor.hasSymbolicSizes());
        m = io::parseValueMeta("i64[][]cuda:0");
        QCOMPARE(m.tensor.dtype, DType::Int64);
        QVERIFY(m.tensor.sizes.empty() && m.tensor.strides && m.tensor.strides->empty());
        m = io::parseValueMeta("b8[3, 4]");
        QCOMPARE(m.tensor.dtype, DType::Bool);
        QVERIFY(!m.tensor.strides && !m.tensor.device);
        QCOMPARE(m.text, std::string("b8[3, 4]"));
        m = io::parseValueMeta("bf16[8][1]cpu");
        QCOMPARE(m.tensor.device, (Device{"cpu", -1}));
        m = io::parseValueMeta("Sym(s0)");
        QCOMPARE(m.kind, ValueMeta::Kind::Sym);
        QCOMPARE(m.text, std::string("Sym(s0)"));
        m = io::parseValueMeta("f32[ 10 ,20 ][20, 1]");
        QCOMPARE(m.tensor.sizes, (std::vector<SymInt>{SymInt::of(10), SymInt::of(20)}));
        m = io::parseValueMeta("f32[-1, 4 5]");
        QCOMPARE(m.tensor.sizes, (std::vector<SymInt>{SymInt::of(-1), SymInt::symbol("4 5")}));
        for (const char* bad : {"q32[4]", "f32[4", "f32[4,,2]", "f32[4,]", "f32[,]", "f32[4]cu da",
                                "f32[4][1", "GraphModule"}) {
            m = io::parseValueMeta(bad);
            QCOMPARE(m.kind, ValueMeta::Kind::Other);
            QCOMPARE(m.text, std::string(bad));
        }
        QCOMPARE(io::parseValueMeta("").kind, ValueMeta::Kind::None);

        const auto r = parse(R"PY(class GraphModule(torch.nn.Module):
    def forward(self, s0: "Sym(s0)", x: "f32[s0, 4][4, 1]cpu"):
        add: "f32[s0, 4][4, 1]cpu" = torch.ops.aten.add.Tensor(x, s0)
        size: "Sym(s0)" = torch.ops.aten.sym_size.int(x, 0)
        return (add, size)
)PY");
        checkClean(r, 5);
        QCOMPARE(nodeNamed(*r.graph, "s0").meta.kind, ValueMeta::Kind::Sym);
        QCOMPARE(nodeNamed(*r.graph, "size").meta.kind, ValueMeta::Kind::Sym);
        QCOMPARE(nodeNamed(*r.graph, "add").tensorMeta()->sizes[0], SymInt::symbol("s0"));
    }

    void signatures()
    {
        const auto one = parse("class M(torch.nn.Module):\n"
                               "    def forward(self, a: \"f32[2]\", b, c : torch.Tensor):\n"
                               "        return (a, b, c)\n");
        checkClean(one, 4);
        QCOMPARE(one.graph->name(), std::string("M"));
        QCOMPARE(nodeNamed(*one.graph, "b").meta.kind, ValueMeta::Kind::None);
        QCOMPARE(nodeNamed(*one.graph, "c").meta.kind, ValueMeta::Kind::None);
        QCOMPARE(nodeNamed(*one.graph, "a").line, 2);

        const auto multi = parse("class <lambda>(torch.nn.Module):\n"
                                 "    def forward(\n"
                                 "        self,\n"
                                 "        arg0_1: \"f32[10][1]cuda:0\",  # PlainAOTInput(idx=0)\n"
                                 "        arg1_1: \"f32[10][1]cuda:0\",  # PlainAOTInput(idx=1)\n"
                                 "        arg2_1,\n"
                                 "    ):\n"
                                 "        mul = torch.ops.aten.mul.Tensor(arg0_1, arg1_1)\n"
                                 "        return (\n"
                                 "            mul,  # PlainAOTOutput(idx=0)\n"
                                 "            arg2_1,\n"
                                 "        )\n", 100);
        checkClean(multi, 5);
        const Graph& g = *multi.graph;
        QCOMPARE(g.name(), std::string("<lambda>"));
        QCOMPARE(nodeNamed(g, "arg1_1").line, 104);
        QCOMPARE(nodeNamed(g, "arg1_1").aot->idx, 1);
        QCOMPARE(nodeNamed(g, "arg1_1").aot->kind, std::string("PlainAOTInput"));
        QVERIFY(!nodeNamed(g, "arg2_1").aot);
        QCOMPARE(nodeNamed(g, "mul").line, 107);
        const Node& out = g.node(g.outputNode());
        QCOMPARE(out.line, 108);
        QCOMPARE(out.outputAot.size(), std::size_t(2));
        QCOMPARE(out.outputAot[0]->kind, std::string("PlainAOTOutput"));
        QVERIFY(!out.outputAot[1]);
    }

    void nestedSubmodules()
    {
        const auto r = parse(R"PY(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[8][1]cpu"):
        l_x_ = L_x_
        body = self.body_0
        res = torch.ops.higher_order.invoke_subgraph(body, 'body_0', l_x_)
        getitem: "f32[8][1]cpu" = res[0];  res = None
        return (getitem,)

    class body_0(torch.nn.Module):
        def forward(self, x: "f32[8][1]cpu"):
            # No stacktrace found for following nodes
            cos: "f32[8][1]cpu" = x.cos()
            return ((cos,), (x,))

        class inner(torch.nn.Module):
            def forward(self, y):
                return y

    class body_1(torch.nn.Module):
        def forward(self, z):
            return (z,)
)PY");
        checkClean(r, 5 + 3 + 2 + 2);
        const Graph& g = *r.graph;
        QCOMPARE(g.submodules().size(), std::size_t(2));
        const auto body = g.submodule("body_0");
        QVERIFY(body);
        QCOMPARE(body->size(), std::size_t(3));
        QCOMPARE(body->submodules().size(), std::size_t(1));
        QCOMPARE(body->submodules()[0]->name(), std::string("inner"));
        QCOMPARE(argText(*body, body->node(body->outputNode()).args[0]), std::string("((cos,), (x,))"));
        QCOMPARE(body->node(1).line, 12);
        QVERIFY(g.submodule("body_1"));
        QCOMPARE(nodeNamed(g, "body").target, std::string("body_0"));
        QVERIFY(nodeNamed(g, "res").multiOutput);
    }

    void cacheKeyGmForm()
    {
        const std::string text = "GraphModule()\n\n\n\ndef forward(self, primals_1, primals_2):\n"
                                 "    sin = torch.ops.aten.sin.default(primals_1)\n"
                                 "    mm = torch.ops.aten.mm.default(sin, primals_2);  sin = None\n"
                                 "    return (mm, primals_1)\n    \n"
                                 "# To see more debug info, please use `graph_module.print_readable()`";
        const auto r = parse(text);
        checkClean(r, 5);
        QCOMPARE(r.graph->name(), std::string("GraphModule"));
        QCOMPARE(nodeNamed(*r.graph, "mm").line, 7);
        QCOMPARE(nodeNamed(*r.graph, "mm").statement,
                 std::string("mm = torch.ops.aten.mm.default(sin, primals_2);  sin = None"));
        QVERIFY(nodeNamed(*r.graph, "mm").meta.kind == ValueMeta::Kind::None);
        // The same with the component's label in front, and Dynamo's typed parameters.
        const auto typed = parse("[kjpm] gm: GraphModule()\n\n\n\n"
                                 "def forward(self, p_0 : torch.Tensor, p_1 : torch.nn.parameter.Parameter):\n"
                                 "    sin = p_0.sin();  p_0 = None\n"
                                 "    matmul = sin @ p_1;  sin = p_1 = None\n"
                                 "    return (matmul,)\n");
        checkClean(typed, 5);
    }

    void pytreeJointForms()
    {
        const auto r = parse(R"PY(class joint_helper(torch.nn.Module):
    def forward(self, primals, tangents):
        primals_1: "f32[3][1]cpu"; primals_2: "f32[3][1]cpu"; tangents_1: "f32[3][1]cpu";
        primals_1, primals_2, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)
        mul = torch.ops.aten.mul.Tensor(primals_1, primals_2)
        return pytree.tree_unflatten([mul, tangents_1], self._out_spec)
)PY");
        checkClean(r, 3 + 1 + 1);
        QCOMPARE(r.graph->placeholders().size(), std::size_t(3));
        QCOMPARE(nodeNamed(*r.graph, "primals_2").meta.text, std::string("f32[3][1]cpu"));
        QVERIFY(!r.graph->find("primals"));
        QCOMPARE(argText(*r.graph, r.graph->node(r.graph->outputNode()).args[0]),
                 std::string("(mul, tangents_1)"));
        // Without declarations the flattened names become the placeholders.
        const auto bare = parse("def forward(self, primals, tangents):\n"
                                "    primals_1, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)\n"
                                "    return (primals_1, tangents_1)\n");
        checkClean(bare, 3);
        QCOMPARE(bare.graph->node(0).name, std::string("primals_1"));
    }

    void returnForms_data()
    {
        QTest::addColumn<QString>("ret");
        QTest::addColumn<QString>("printed");
        QTest::addColumn<int>("aotCount");
        QTest::newRow("bare") << "return a" << "a" << 1;
        QTest::newRow("one-tuple") << "return (a,)" << "(a,)" << 1;
        QTest::newRow("tuple") << "return (a, None, b)" << "(a, None, b)" << 3;
        QTest::newRow("nested") << "return ((a,), (b,))" << "((a,), (b,))" << 2;
        QTest::newRow("list") << "return [a, b]" << "[a, b]" << 2;
        QTest::newRow("none") << "return None" << "None" << 1;
    }

    void returnForms()
    {
        QFETCH(QString, ret);
        QFETCH(QString, printed);
        QFETCH(int, aotCount);
        const auto r = parse("def forward(self, a, b):\n    " + ret.toStdString() + "\n");
        checkClean(r, 3);
        const Node& out = r.graph->node(r.graph->outputNode());
        QCOMPARE(out.op, OpKind::Output);
        QCOMPARE(argText(*r.graph, out.args[0]), printed.toStdString());
        QCOMPARE(int(out.outputAot.size()), aotCount);
    }

    void truncatedFile()
    {
        const std::string full = fxs_test::readText(fxs_test::fixture("graphs/resnet18_infer.txt")).toStdString();
        // Cut in the middle of line 31's statement: lines 1..30 parse, 31 is cut mid-call.
        std::size_t at = 0;
        for (int k = 0; k < 30; ++k) {
            at = full.find('\n', at) + 1;
        }
        const std::string cut = full.substr(0, at + 110); // after the call's "("
        const auto r = parse(cut);
        QVERIFY(r.graph);
        QVERIFY(r.graph->size() > 10);
        QCOMPARE(r.graph->outputNode(), kNoNode);
        QVERIFY(hasError(r, 31, "unterminated"));
        QCOMPARE(r.unparsedLines, 1);
        bool noReturn = false;
        for (const auto& d : r.diagnostics.items()) {
            noReturn = noReturn || d.message.find("without a return") != std::string::npos;
        }
        QVERIFY(noReturn);
    }

    void unterminatedSignatureAndReturn()
    {
        const auto sig = parse("class M(torch.nn.Module):\n    def forward(self, a: \"f32[2]\",\n");
        QVERIFY(hasError(sig, 2, "unterminated"));
        QVERIFY(sig.graph);
        QCOMPARE(sig.unparsedLines, 1);

        const auto ret = parse("def forward(self, a):\n    b = a.sin()\n    return (\n        b,\n");
        QVERIFY(hasError(ret, 3, "unterminated"));
        QCOMPARE(ret.unparsedLines, 2);
        QVERIFY(ret.graph);
        QVERIFY(ret.graph->find("b"));
        QCOMPARE(ret.graph->outputNode(), kNoNode);

        // An unclosed call followed by a statement at the same indent: the statement survives.
        const auto stmt = parse("def forward(self, a):\n    b = torch.ops.aten.sin.default(a\n"
                                "    c = a.cos()\n    return (c,)\n");
        QVERIFY(hasError(stmt, 2, "unterminated"));
        QCOMPARE(stmt.unparsedLines, 1);
        QVERIFY(stmt.graph->find("c"));
        QVERIFY(!stmt.graph->find("b"));
        QVERIFY(stmt.graph->outputNode() != kNoNode);
    }

    void badStatementKeepsOthers()
    {
        const auto r = parse("class M(torch.nn.Module):\n"
                             "    def forward(self, x: \"f32[2]\"):\n"
                             "        a = torch.ops.aten.sin.default(x)\n"
                             "        b = torch.ops.aten.cos.default(a) $ 3\n"
                             "        c = 42\n"
                             "        d = torch.ops.aten.add.Tensor(a, zzz)\n"
                             "        return (a, d)\n", 10);
        QVERIFY(r.graph);
        QCOMPARE(r.unparsedLines, 2);
        QCOMPARE(r.statements, 4); // x, a, d, output
        QVERIFY(r.graph->find("a") && r.graph->find("d") && !r.graph->find("b") && !r.graph->find("c"));
        const Diagnostic* bad = nullptr;
        for (const auto& d : r.diagnostics.items()) {
            if (d.line == 13 && d.severity == Severity::Error) {
                bad = &d;
            }
        }
        QVERIFY(bad);
        QCOMPARE(bad->file, std::string("inline.py"));
        QCOMPARE(bad->found, std::string("$ 3"));
        QVERIFY(!bad->expected.empty());
        QVERIFY(hasError(r, 14, "not a graph node"));
        // The unknown name is kept as text with a warning, not an error.
        const Node& d = nodeNamed(*r.graph, "d");
        QCOMPARE(d.args[1].kind, ArgKind::Expr);
        QCOMPARE(d.args[1].text, std::string("zzz"));
        bool warned = false;
        for (const auto& diag : r.diagnostics.items()) {
            warned = warned || (diag.severity == Severity::Warning && diag.line == 15 &&
                                diag.message.find("zzz") != std::string::npos);
        }
        QVERIFY(warned);
    }

    void duplicatesAndStatementsAfterReturn()
    {
        const auto r = parse("def forward(self, x):\n    a = x.sin()\n    a = x.cos()\n    return a\n"
                             "    b = x.tan()\n");
        QVERIFY(hasError(r, 3, "duplicate"));
        QVERIFY(hasError(r, 5, "after return"));
        QCOMPARE(r.unparsedLines, 2);
        QCOMPARE(r.graph->size(), std::size_t(3));
    }

    void garbageAndEmpty()
    {
        for (const std::string& input : {std::string(), std::string("\n\n   \n"),
                                         std::string("\x7f" "ELF\x02\x01\x01\0\0\0\xff\xfe\n\x01\x02", 18),
                                         std::string("hello world\nthis is not a graph\n")}) {
            const auto r = parse(input);
            QVERIFY(!r.graph);
            QCOMPARE(r.diagnostics.size(), std::size_t(1));
            QCOMPARE(r.diagnostics.items()[0].message, std::string("no graph found"));
            QCOMPARE(r.statements, 0);
        }
    }

    void deepNesting()
    {
        for (const char* open : {"(", "[", "-", "{"}) {
            std::string deep = "def forward(self, x):\n    y = torch.ops.aten.f.default(";
            for (int k = 0; k < 100000; ++k) {
                deep += open;
            }
            deep += "x\n    return x\n";
            const auto r = parse(deep);
            QVERIFY(r.graph);
            QVERIFY(!r.diagnostics.empty());
            QVERIFY(!r.graph->find("y"));
        }
        std::string ok = "def forward(self, x):\n    y = torch.ops.aten.f.default(";
        ok += std::string(150, '[') + "x" + std::string(150, ']') + ")\n    return y\n";
        checkClean(parse(ok), 3);
        std::string tooDeep = "def forward(self, x):\n    y = torch.ops.aten.f.default(";
        tooDeep += std::string(250, '[') + "x" + std::string(250, ']') + ")\n    return x\n";
        const auto r = parse(tooDeep);
        QVERIFY(hasError(r, 2, "nested too deeply"));
    }

    void keepText()
    {
        const std::string text = "def forward(self, x):\n    return x\n";
        QCOMPARE(io::parseGraphCode(text, "a", 1, true).graph->text(), text);
        QVERIFY(io::parseGraphCode(text, "a", 1, false).graph->text().empty());
        QCOMPARE(io::parseGraphCode(text, "a", 7, true).graph->firstLine(), 7);
    }
};

QTEST_GUILESS_MAIN(TestGraphCodeParser)
#include "tst_graph_code_parser.moc"

FXSCOPE_TEST_END
