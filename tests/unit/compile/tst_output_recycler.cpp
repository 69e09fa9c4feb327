// A program's output buffers reused across its calls (output_recycler.h): a buffer comes back
// only when nothing else refers to it (its tensor, a view of it), each output slot keeps its
// own, at most kPerSlot of them; and a whole compiled graph run again and again on the CPU keeps
// giving eager's values while its regions write into reused buffers.
#include "core/compile/compiled_graph.h"
#include "core/compile/output_recycler.h"
#include "core/exec/torch_bridge.h"
#include "core/io/graph_code_parser.h"
#include "core/partition/auto_proposal.h"
#include "tests/test_file.h"
#include "tests/unit/compile/compile_test_support.h"

#include <QTemporaryDir>
#include <QtTest>

#include <set>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using compile::detail::OutputRecycler;

namespace {

codegen::BufferSpec spec(std::vector<std::int64_t> sizes, std::vector<std::int64_t> strides)
{
    codegen::BufferSpec s;
    s.type = codegen::ScalarType::Float32;
    s.sizes = std::move(sizes);
    s.strides = std::move(strides);
    return s;
}

const void* address(const at::Tensor& t)
{
    return t.data_ptr();
}

} // namespace

class TestOutputRecycler : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(OutputRecycler::enabled()); }

    void anUnreferencedBufferComesBack()
    {
        OutputRecycler r;
        const auto s = spec({4, 6}, {1, 4}); // a permuted dense layout, as channels_last is
        const long reused = OutputRecycler::reusedCount();
        at::Tensor a = r.take(0, 0, s, at::TensorOptions());
        QCOMPARE(OutputRecycler::reusedCount(), reused);
        QCOMPARE(a.sizes().vec(), (std::vector<std::int64_t>{4, 6}));
        QCOMPARE(a.strides().vec(), (std::vector<std::int64_t>{1, 4}));
        const void* first = address(a);
        a.fill_(1.0);
        a.reset(); // the call's consumers are done with it
        at::Tensor b = r.take(0, 0, s, at::TensorOptions());
        QCOMPARE(address(b), first);
        QCOMPARE(OutputRecycler::reusedCount(), reused + 1);
        QCOMPARE(b.strides().vec(), (std::vector<std::int64_t>{1, 4}));
        // Held: the next call gets other memory, and the held values stay as they are.
        b.fill_(2.0);
        at::Tensor c = r.take(0, 0, s, at::TensorOptions());
        QVERIFY(address(c) != first);
        c.fill_(3.0);
        QCOMPARE(b.sum().item<double>(), 48.0);
        // Another slot or program has buffers of its own.
        b.reset();
        at::Tensor other = r.take(0, 1, s, at::TensorOptions());
        QVERIFY(address(other) != first && address(other) != address(c));
        at::Tensor again = r.take(1, 0, s, at::TensorOptions());
        QVERIFY(address(again) != first);
        // Slot (0, 0) still has `first` for its next call.
        QCOMPARE(address(r.take(0, 0, s, at::TensorOptions())), first);
    }

    void aViewOrAStorageHolderKeepsItsBuffer()
    {
        OutputRecycler r;
        const auto s = spec({8}, {1});
        at::Tensor a = r.take(0, 0, s, at::TensorOptions());
        const void* first = address(a);
        at::Tensor view = a.narrow(0, 2, 3); // a value of the run that reads part of it
        a.reset();
        QVERIFY(address(r.take(0, 0, s, at::TensorOptions())) != first);
        view.reset();
        at::Tensor b = r.take(0, 0, s, at::TensorOptions());
        QCOMPARE(address(b), first);
        // A tensor made on the same storage (set_) holds it too.
        at::Tensor alias = at::empty({0}).set_(b.storage(), 0, {8}, {1});
        b.reset();
        QVERIFY(address(r.take(0, 0, s, at::TensorOptions())) != first);
        alias.reset();
        QCOMPARE(address(r.take(0, 0, s, at::TensorOptions())), first);
    }

    void atMostKPerSlotAreKept()
    {
        OutputRecycler r;
        const auto s = spec({16}, {1});
        std::vector<at::Tensor> held;
        std::set<const void*> before;
        for (std::size_t i = 0; i < OutputRecycler::kPerSlot + 2; ++i) {
            held.push_back(r.take(0, 0, s, at::TensorOptions()));
            before.insert(address(held.back()));
        }
        QCOMPARE(before.size(), OutputRecycler::kPerSlot + 2); // all held: all new
        held.clear();
        std::set<const void*> after;
        for (std::size_t i = 0; i < OutputRecycler::kPerSlot + 2; ++i) {
            held.push_back(r.take(0, 0, s, at::TensorOptions()));
            after.insert(address(held.back()));
        }
        std::size_t reused = 0;
        for (const void* p : after) {
            reused += before.count(p);
        }
        // The slot kept kPerSlot of the six; the other two calls allocate. (The allocator may
        // hand back a freed block by chance: at least kPerSlot, not more than all.)
        QVERIFY2(reused >= OutputRecycler::kPerSlot, std::to_string(reused).c_str());
        QCOMPARE(after.size(), OutputRecycler::kPerSlot + 2);
    }

    // A graph whose regions' outputs feed eager nodes and other regions, run compiled five
    // times in one report (its timed runs) and again: the outputs agree with eager every time.
    void compiledRunsAgreeWithEagerWhileBuffersAreReused()
    {
        const std::string code =
            "def forward(self, x: \"f32[64, 32][32, 1]cpu\", w: \"f32[32, 32][32, 1]cpu\"):\n"
            "    mul: \"f32[64, 32][32, 1]cpu\" = torch.ops.aten.mul.Tensor(x, 2)\n"
            "    relu: \"f32[64, 32][32, 1]cpu\" = torch.ops.aten.relu.default(mul)\n"
            "    mm: \"f32[64, 32][32, 1]cpu\" = torch.ops.aten.mm.default(relu, w)\n"
            "    neg: \"f32[64, 32][32, 1]cpu\" = torch.ops.aten.neg.default(mm)\n"
            "    half: \"f32[64, 32][32, 1]cpu\" = torch.ops.aten.mul.Tensor(neg, 0.5)\n"
            "    add: \"f32[64, 32][32, 1]cpu\" = torch.ops.aten.add.Tensor(half, relu)\n"
            "    return (add, relu)\n";
        const graph::GraphPtr g = io::parseGraphCode(code, "recycled.txt").graph;
        QVERIFY(g);
        const auto regions = partition::proposeRegions(*g, {}).regions;
        QCOMPARE(regions.size(), std::size_t(2)); // by hand: mul-relu and neg-half-add
        QTemporaryDir dir;
        auto store = test::openStore(dir.path().toStdString() + "/store");
        QVERIFY(store);
        for (int round = 0; round < 2; ++round) {
            compile::GraphCompileOptions o;
            o.compile.store = store.get();
            o.compile.timingRepeats = 2;
            o.compile.slower = [](double, double, double, double) { return false; };
            o.run.repeat = 5;
            const long before = OutputRecycler::reusedCount();
            auto r = compile::runCompiledGraph(*g, regions, o);
            // The regions' outputs die within each run: later runs write into them again.
            QVERIFY(OutputRecycler::reusedCount() > before);
            QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
            QCOMPARE(r->regionsUsed, 2);
            QCOMPARE(r->outputMaxAbsErr.size(), std::size_t(2));
            for (const auto& e : r->outputMaxAbsErr) {
                QVERIFY(e.has_value());
                QVERIFY2(*e < 1e-5, std::to_string(*e).c_str());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestOutputRecycler)
#include "tst_output_recycler.moc"

FXSCOPE_TEST_END
