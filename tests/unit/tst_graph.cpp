// Graph IR: builder validation, derived users/inputs, multi-output links, meta printing.
#include "core/graph/graph_builder.h"
#include "core/graph/op_category.h"
#include "tests/test_file.h"

#include <QtTest>

#include <cmath>

FXSCOPE_TEST_BEGIN

using namespace fxs::graph;

class TestGraph : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void buildsUsersAndInputs()
    {
        GraphBuilder b;
        TensorMeta m{DType::Float32, {SymInt::of(4), SymInt::of(8)}, std::nullopt, std::nullopt};
        const NodeId x = b.placeholder("x", m);
        const NodeId y = b.placeholder("y", m);
        const NodeId add = b.call("add", "aten::add.Tensor", {Argument::ref(x), Argument::ref(y)});
        const NodeId mul = b.call("mul", "aten::mul.Tensor", {Argument::ref(add), Argument::ref(add)});
        b.output({Argument::ref(mul)});
        auto g = b.build();
        QVERIFY(g.ok());
        const Graph& graph = **g;
        QCOMPARE(graph.size(), std::size_t(5));
        QCOMPARE(graph.placeholders().size(), std::size_t(2));
        QCOMPARE(graph.node(add).users, std::vector<NodeId>{mul});
        // mul references add twice: one input, one user entry.
        QCOMPARE(graph.node(mul).inputs, std::vector<NodeId>{add});
        QCOMPARE(graph.node(add).inputs, (std::vector<NodeId>{x, y}));
        QCOMPARE(graph.returnedNodes(), std::vector<NodeId>{mul});
        QCOMPARE(*graph.find("mul"), mul);
        QVERIFY(!graph.find("nope"));
        QCOMPARE(graph.opHistogram().at("aten::add.Tensor"), 1);
        QCOMPARE(graph.countOf(OpKind::CallFunction), std::size_t(2));
    }

    void rejectsForwardReferenceAndDuplicates()
    {
        GraphBuilder b;
        const NodeId x = b.placeholder("x");
        b.call("a", "aten::neg.default", {Argument::ref(x + 5)});
        auto g = b.build();
        QVERIFY(!g.ok());
        QVERIFY(g.error().message.find("before it is defined") != std::string::npos);

        GraphBuilder d;
        d.placeholder("x");
        d.placeholder("x");
        auto g2 = d.build();
        QVERIFY(!g2.ok());
        QVERIFY(g2.error().message.find("duplicate") != std::string::npos);
    }

    void modelsMultiOutputGetitems()
    {
        GraphBuilder b;
        const NodeId x = b.placeholder("x");
        const NodeId ln = b.call("native_layer_norm", "aten::native_layer_norm.default",
                                 {Argument::ref(x), Argument::list({Argument::integer(8)}),
                                  Argument::none(), Argument::none(), Argument::real(1e-5)});
        const NodeId g0 = b.getitem("getitem", ln, 0);
        const NodeId g2 = b.getitem("getitem_2", ln, 2);
        b.output({Argument::ref(g0), Argument::ref(g2)});
        auto g = b.build();
        QVERIFY(g.ok());
        QVERIFY((*g)->node(ln).multiOutput);
        QCOMPARE((*g)->node(g2).getitemOf, ln);
        QCOMPARE((*g)->node(g2).getitemIndex, 2);
        QVERIFY(!(*g)->node(x).multiOutput);
    }

    void printsMetaAndArguments()
    {
        TensorMeta m{DType::Float32,
                     {SymInt::of(64), SymInt::symbol("2*s1")},
                     std::vector<SymInt>{SymInt::symbol("2*s1"), SymInt::of(1)},
                     Device{"cuda", 0}};
        QCOMPARE(m.toString(), std::string("f32[64, 2*s1][2*s1, 1]cuda:0"));
        QVERIFY(m.hasSymbolicSizes());
        QVERIFY(!m.numel());
        TensorMeta s{DType::Int64, {}, std::vector<SymInt>{}, std::nullopt};
        QCOMPARE(s.toString(), std::string("i64[][]"));
        QCOMPARE(*s.numel(), std::int64_t(1));
        QCOMPARE(*s.nbytes(), std::int64_t(8));

        const std::vector<std::string> names{"x"};
        const Argument a = Argument::list(
            {Argument::ref(0), Argument::real(INFINITY), Argument::real(NAN),
             Argument::tuple({Argument::integer(-3)}), Argument::ofDtype(DType::BFloat16),
             Argument::ofDevice(Device{"cuda", 1}), Argument::memoryFormat("channels_last"),
             Argument::string("it's"), Argument::boolean(true), Argument::none()});
        QCOMPARE(argumentToString(a, names),
                 std::string("[x, inf, nan, (-3,), torch.bfloat16, device(type='cuda', index=1), "
                             "torch.channels_last, 'it\\'s', True, None]"));
        QVERIFY(Argument::real(NAN) == Argument::real(NAN));
        QVERIFY(!(Argument::integer(1) == Argument::real(1.0)));
    }

    void dtypesRoundTrip()
    {
        for (auto code : {"f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "b8",
                          "c64", "c128", "f8e4m3fn", "f8e5m2"}) {
            const auto t = dtypeFromCode(code);
            QVERIFY2(t.has_value(), code);
            QCOMPARE(std::string(dtypeCode(*t)), std::string(code));
            QCOMPARE(dtypeFromTorchName("torch." + std::string(dtypeTorchName(*t))), t);
        }
        QCOMPARE(dtypeFromTorchName("torch.long"), std::optional<DType>(DType::Int64));
        QCOMPARE(dtypeItemSize(DType::BFloat16), 2);
        QVERIFY(!dtypeFromCode("f33"));
    }

    void categorizesTargets()
    {
        QCOMPARE(categorizeTarget("aten::mm.default"), OpCategory::MatmulConv);
        QCOMPARE(categorizeTarget("aten::convolution.default"), OpCategory::MatmulConv);
        QCOMPARE(categorizeTarget("aten::add.Tensor"), OpCategory::Pointwise);
        QCOMPARE(categorizeTarget("aten::add_.Tensor"), OpCategory::Pointwise);
        QCOMPARE(categorizeTarget("aten::sum.dim_IntList"), OpCategory::Reduction);
        QCOMPARE(categorizeTarget("aten::_unsafe_view.default"), OpCategory::View);
        QCOMPARE(categorizeTarget("operator.getitem"), OpCategory::View);
        QCOMPARE(categorizeTarget("operator.matmul"), OpCategory::MatmulConv);
        QCOMPARE(categorizeTarget("operator.mul"), OpCategory::Pointwise);
        QCOMPARE(categorizeTarget("_c10d_functional::all_reduce.default"), OpCategory::Collective);
        QCOMPARE(categorizeTarget("aten::embedding.default"), OpCategory::Other);
        QCOMPARE(opBaseName("aten::native_layer_norm.default"), std::string_view("native_layer_norm"));
        QCOMPARE(opOverload("aten::add.Tensor"), std::string_view("Tensor"));
        QCOMPARE(opBaseName("torch.sin"), std::string_view("sin"));
    }
};

QTEST_GUILESS_MAIN(TestGraph)
#include "tst_graph.moc"

FXSCOPE_TEST_END
