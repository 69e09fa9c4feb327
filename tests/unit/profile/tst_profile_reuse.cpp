// Per-module reuse of run-time profiles on a three-layer residual stack (Dynamo names, so each
// layer is a module): the units are the layers, a unit's key changes with the options that
// change timings and with its own nodes only, a second profile of an unchanged graph makes no
// engine run and returns the first one's times, a changed option runs everything again, a graph
// with one changed layer times only that layer, and progress names the module being run.
#include "core/profile/profile_reuse.h"
#include "core/profile/runtime_profile.h"
#include "core/structure/structure.h"
#include "tests/test_file.h"

#include "tests/unit/structure/synthetic_graphs.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::profile;

namespace {

std::string dynamoName(std::size_t k)
{
    return "L_self_modules_layers_modules_" + std::to_string(k) + "_modules_fc_parameters_weight_";
}

struct Stack {
    graph::GraphPtr graph;
    structure::ModuleTree tree;
};

// test::residualStack returning x itself (the engine runs no tuple outputs): per layer k,
// x = x + sum(relu(x @ w_k), 1), the mm in module layers.k.fc and the rest in layers.k.
graph::GraphPtr runnableStack(const std::vector<int>& widths)
{
    using graph::Argument;
    graph::GraphBuilder b;
    graph::NodeId x = b.placeholder("x", test::f32(8, 16));
    std::vector<graph::NodeId> weights;
    for (std::size_t k = 0; k < widths.size(); ++k) {
        weights.push_back(b.placeholder(dynamoName(k), test::f32(16, widths[k])));
    }
    for (std::size_t k = 0; k < widths.size(); ++k) {
        const std::string s = std::to_string(k);
        const auto mm = b.call("mm_" + s, "aten::mm.default",
                               {Argument::ref(x), Argument::ref(weights[k])}, {},
                               test::f32(8, widths[k]));
        const auto relu = b.call("relu_" + s, "aten::relu.default", {Argument::ref(mm)}, {},
                                 test::f32(8, widths[k]));
        const auto sum = b.call("sum_" + s, "aten::sum.dim_IntList",
                                {Argument::ref(relu), Argument::list({Argument::integer(1)}),
                                 Argument::boolean(true)},
                                {}, test::f32(8, 1));
        x = b.call("add_" + s, "aten::add.Tensor", {Argument::ref(x), Argument::ref(sum)}, {},
                   test::f32(8, 16));
    }
    b.output({Argument::ref(x)});
    return *b.build();
}

Stack stack(const std::vector<int>& widths)
{
    Stack s;
    s.graph = runnableStack(widths);
    s.tree = *structure::recoverStructure(*s.graph);
    return s;
}

ProfileOptions options(const Stack& s, ProfileMemo* memo, int repeat = 2)
{
    ProfileOptions o;
    o.repeat = repeat;
    o.peaks = MachinePeaks{10.0, 1.0};
    o.modules = &s.tree;
    o.memo = memo;
    return o;
}

const NodeProfile& node(const RuntimeProfile& p, const std::string& name)
{
    for (const auto& n : p.nodes) {
        if (n.name == name) {
            return n;
        }
    }
    static const NodeProfile none;
    return none;
}

bool sameTimes(const RuntimeProfile& a, const RuntimeProfile& b, const std::string& suffix)
{
    for (const char* op : {"mm_", "relu_", "sum_", "add_"}) {
        if (!(node(a, op + suffix).eager == node(b, op + suffix).eager)) {
            return false;
        }
    }
    return true;
}

} // namespace

class TestProfileReuse : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void unitsAreTheLayers()
    {
        const Stack s = stack({32, 32, 32});
        const auto units = profileUnits(*s.graph, &s.tree);
        QCOMPARE(units.size(), std::size_t(3));
        QCOMPARE(units[1].path, std::string("layers.1"));
        QCOMPARE(units[1].nodes.size(), std::size_t(4)); // mm, relu, sum, add
        // No tree: one unit with every call node.
        const auto whole = profileUnits(*s.graph, nullptr);
        QCOMPARE(whole.size(), std::size_t(1));
        QCOMPARE(whole[0].path, std::string());
        QCOMPARE(whole[0].nodes.size(), std::size_t(12));
    }

    void keysFollowTheOptionsAndTheUnitsOwnNodes()
    {
        const Stack a = stack({32, 32, 32});
        const Stack b = stack({32, 32, 48}); // layer 2 wider
        const auto ua = profileUnits(*a.graph, &a.tree);
        const ProfileOptions o = options(a, nullptr);
        const std::string k0 = unitKey(*a.graph, ua[0], o);
        QCOMPARE(k0.size(), std::size_t(64));
        QCOMPARE(unitKey(*a.graph, ua[0], o), k0);
        QVERIFY(unitKey(*a.graph, ua[1], o) != k0); // another path and other nodes
        ProfileOptions changed = o;
        changed.repeat = 3;
        QVERIFY(unitKey(*a.graph, ua[0], changed) != k0);
        changed = o;
        changed.run.seed = 7;
        QVERIFY(unitKey(*a.graph, ua[0], changed) != k0);
        changed = o;
        changed.run.sizes["s0"] = 8;
        QVERIFY(unitKey(*a.graph, ua[0], changed) != k0);
        changed = o;
        changed.run.device = exec::DevicePref::Cpu;
        QVERIFY(unitKey(*a.graph, ua[0], changed) != k0);
        changed = o;
        changed.run.inputs = std::make_shared<exec::ValueStore>();
        QCOMPARE(unitKey(*a.graph, ua[0], changed), std::string()); // never reused
        // The wider layer 2 changes its own key only.
        const auto ub = profileUnits(*b.graph, &b.tree);
        QCOMPARE(unitKey(*b.graph, ub[0], o), k0);
        QCOMPARE(unitKey(*b.graph, ub[1], o), unitKey(*a.graph, ua[1], o));
        QVERIFY(unitKey(*b.graph, ub.back(), o) != unitKey(*a.graph, ua[2], o));
    }

    void unchangedGraphRunsNothing()
    {
        const Stack s = stack({32, 32, 32});
        ProfileMemo memo;
        auto first = profileGraph(*s.graph, {}, options(s, &memo));
        QVERIFY2(first.ok(), first.ok() ? "" : first.error().toString().c_str());
        ProfileMemo::Stats st = memo.lastStats();
        QCOMPARE(st.engineRuns, 3); // warm-up + 2 timed
        QCOMPARE(st.unitsMeasured, std::size_t(3));
        QCOMPARE(st.unitsReused, std::size_t(0));
        QCOMPARE(memo.size(), std::size_t(3));

        auto second = profileGraph(*s.graph, {}, options(s, &memo));
        QVERIFY(second.ok());
        st = memo.lastStats();
        QCOMPARE(st.engineRuns, 0);
        QCOMPARE(st.unitsReused, std::size_t(3));
        QCOMPARE(second->nodes.size(), first->nodes.size());
        for (const char* layer : {"0", "1", "2"}) {
            QVERIFY(sameTimes(*first, *second, layer));
        }
        QCOMPARE(second->total, first->total);
        QCOMPARE(second->device, first->device);
        QVERIFY(second->notes.back().find("3 of 3 modules") != std::string::npos);

        // A changed option invalidates every unit: everything runs again.
        auto third = profileGraph(*s.graph, {}, options(s, &memo, 3));
        QVERIFY(third.ok());
        st = memo.lastStats();
        QCOMPARE(st.engineRuns, 4);
        QCOMPARE(st.unitsReused, std::size_t(0));
        QCOMPARE(third->repeat, 3);
    }

    void changedLayerIsTheOnlyOneTimed()
    {
        ProfileMemo memo;
        const Stack a = stack({32, 32, 32});
        auto before = profileGraph(*a.graph, {}, options(a, &memo));
        QVERIFY(before.ok());
        const Stack b = stack({32, 32, 48});
        auto after = profileGraph(*b.graph, {}, options(b, &memo));
        QVERIFY2(after.ok(), after.ok() ? "" : after.error().toString().c_str());
        const ProfileMemo::Stats st = memo.lastStats();
        QCOMPARE(st.unitsReused, std::size_t(2)); // layers 0 and 1
        QCOMPARE(st.unitsMeasured, std::size_t(1));
        QCOMPARE(st.engineRuns, 3); // the warm-up runs everything, the timed runs layer 2 only
        QCOMPARE(after->nodes.size(), std::size_t(12));
        QVERIFY(sameTimes(*before, *after, "0"));
        QVERIFY(sameTimes(*before, *after, "1"));
        QVERIFY(node(*after, "mm_2").eager.medianMs > 0.0); // timed now, not taken from before
        QVERIFY(!(node(*after, "mm_2").eager == node(*before, "mm_2").eager));
        QVERIFY(after->notes.back().find("2 of 3 modules") != std::string::npos);
    }

    void engineCallsOnNodePerCallNode()
    {
        const Stack s = stack({32, 32, 32});
        exec::RunOptions ro;
        std::vector<graph::NodeId> seen;
        ro.onNode = [&](graph::NodeId id) { seen.push_back(id); };
        auto r = exec::Interpreter::run(*s.graph, ro);
        QVERIFY(r.ok() && r->ok);
        QCOMPARE(seen.size(), std::size_t(12));
        QCOMPARE(s.graph->node(seen.front()).name, std::string("mm_0"));
    }

    void progressNamesTheModule()
    {
        const Stack s = stack({32, 32, 32});
        std::vector<std::string> phases;
        double last = -1.0;
        bool monotonic = true;
        auto p = profileGraph(*s.graph, {}, options(s, nullptr), CancelToken::none(),
                              [&](double f, std::string_view phase) {
                                  monotonic = monotonic && f >= last;
                                  last = f;
                                  phases.emplace_back(phase);
                              });
        QVERIFY(p.ok());
        QVERIFY(monotonic);
        const auto has = [&](const std::string& text) {
            return std::find(phases.begin(), phases.end(), text) != phases.end();
        };
        QVERIFY(has("warm-up run \u00b7 module 1/3: layers.0"));
        QVERIFY(has("timed run 2/2 \u00b7 module 3/3: layers.2"));
        QCOMPARE(last, 1.0);
    }
};

QTEST_GUILESS_MAIN(TestProfileReuse)
#include "tst_profile_reuse.moc"

FXSCOPE_TEST_END
