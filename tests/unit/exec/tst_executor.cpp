// The executor's internals: MemoryTracker's storage table (values sharing a storage counted
// once, its bytes freed with the last of them) against a plain reference count, through growth
// and deletions in every order; the host memory policy (a second round of tensor allocations
// faults no page in anew, nor does a graph's second run under a HostMemoryHold); TensorHandle, which holds its tensor in place: one reference a
// handle, given back by every copy, move, assignment and destruction.
#include "core/exec/executor.h"
#include "core/exec/host_memory.h"
#include "core/exec/interpreter.h"
#include "core/exec/torch_bridge.h"
#include "core/io/graph_code_parser.h"
#include "core/util/file_reader.h"
#include "tests/test_file.h"

#include <QtTest>

#include <ATen/ATen.h>

#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using exec::detail::MemoryTracker;

namespace {

// The live bytes a plain map of storage -> references gives for the same adds and releases.
struct Reference {
    std::map<const void*, std::pair<int, std::int64_t>> refs;
    std::int64_t live = 0, peak = 0;
    void add(const at::Tensor& t)
    {
        auto& e = refs[t.storage().unsafeGetStorageImpl()];
        if (e.first++ == 0) {
            e.second = static_cast<std::int64_t>(t.storage().nbytes());
            live += e.second;
            peak = std::max(peak, live);
        }
    }
    void release(const at::Tensor& t)
    {
        auto it = refs.find(t.storage().unsafeGetStorageImpl());
        if (it != refs.end() && --it->second.first == 0) {
            live -= it->second.second;
            refs.erase(it);
        }
    }
};

// Minor page faults of the process so far.
long minorFaults()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

// What a graph run does to the allocator: many 1 MiB intermediates alive together, written on
// this thread, then all freed. Returns the page faults the round took.
long allocationRound()
{
    const long before = minorFaults();
    std::vector<at::Tensor> held;
    for (int i = 0; i < 48; ++i) {
        held.push_back(at::empty({256 * 1024})); // 1 MiB of float
        std::memset(held.back().data_ptr(), 1, 1 << 20);
    }
    held.clear();
    return minorFaults() - before;
}

// tests/data/exec/chain_4mib.txt: five 4 MiB intermediates a run (1,024 pages each) from a
// 4 MiB input, two or three alive at a time.
graph::GraphPtr chain()
{
    auto text = readFile(FXSCOPE_TEST_DATA "/exec/chain_4mib.txt");
    return text.ok() ? io::parseGraphCode(*text, "chain_4mib.txt").graph : nullptr;
}

// The page faults of one run of `g` (on the CPU, its input given).
long runFaults(const graph::Graph& g, const std::shared_ptr<const exec::ValueStore>& in)
{
    exec::RunOptions o;
    o.device = exec::DevicePref::Cpu;
    o.inputs = in;
    o.perNodeTiming = false;
    o.summarizeOutputs = false;
    const long before = minorFaults();
    auto r = exec::Interpreter::run(g, o);
    return r.ok() && r->ok ? minorFaults() - before : -1;
}

} // namespace

class TestExecutor : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void viewsShareTheirBase()
    {
        // The tracker does not hold the values: the caller keeps them alive (the slots), as here.
        MemoryTracker m;
        const at::Tensor base = at::zeros({256}); // 1 KiB
        const at::Tensor view = base.view({16, 16});
        const at::Tensor other = at::zeros({8});
        const at::Tensor stranger = at::zeros({4});
        const c10::IValue tuple = c10::ivalue::Tuple::create({base.slice(0, 0, 8), other});
        m.add(base);
        m.add(view);
        m.add(tuple);
        QCOMPARE(m.live(), std::int64_t(1024 + 32));
        QCOMPARE(m.storages(), std::size_t(2));
        m.release(base);
        m.release(view);
        QCOMPARE(m.live(), std::int64_t(1024 + 32)); // the tuple's slice still holds the base
        m.release(c10::ivalue::Tuple::create({base.slice(0, 0, 8), at::Tensor()}));
        QCOMPARE(m.live(), std::int64_t(32));
        m.release(stranger); // never added: ignored
        QCOMPARE(m.live(), std::int64_t(32));
        QCOMPARE(m.peak(), std::int64_t(1024 + 32));
    }

    // Thousands of storages, several values each, released in a shuffled order: the table grows
    // and deletes entries whose probes ran past others; every step agrees with the reference.
    void agreesWithAReferenceCount()
    {
        std::mt19937 rng(7);
        std::vector<at::Tensor> values;
        for (int i = 0; i < 3000; ++i) {
            const at::Tensor t = at::empty({1 + i % 97});
            values.push_back(t);
            for (int k = 0; k < i % 3; ++k) {
                values.push_back(t.view({-1}));
            }
        }
        MemoryTracker m;
        Reference ref;
        std::shuffle(values.begin(), values.end(), rng);
        for (std::size_t i = 0; i < values.size(); ++i) {
            m.add(values[i]);
            ref.add(values[i]);
            if (i % 3 == 2) { // interleave releases with the adds
                const std::size_t j = rng() % (i + 1);
                m.release(values[j]);
                ref.release(values[j]);
                m.add(values[j]);
                ref.add(values[j]);
            }
            QCOMPARE(m.live(), ref.live);
        }
        QCOMPARE(m.storages(), ref.refs.size());
        std::shuffle(values.begin(), values.end(), rng);
        for (const auto& v : values) {
            m.release(v);
            ref.release(v);
            QCOMPARE(m.live(), ref.live);
            QCOMPARE(m.storages(), ref.refs.size());
        }
        QCOMPARE(m.live(), std::int64_t(0));
        QCOMPARE(m.peak(), ref.peak);
    }

    void handlesHoldOneReferenceEach()
    {
        const at::Tensor t = at::arange(6, at::kFloat);
        QCOMPARE(t.use_count(), std::size_t(1));
        {
            exec::TensorHandle a = exec::makeHandle(t);
            QCOMPARE(t.use_count(), std::size_t(2));
            QVERIFY(a.defined());
            QCOMPARE(a.data(), t.data_ptr());
            QCOMPARE(a.sizes(), std::vector<std::int64_t>{6});
            QCOMPARE(a.numel(), std::int64_t(6));
            exec::TensorHandle b = a; // a copy: one more reference to the same tensor
            QCOMPARE(t.use_count(), std::size_t(3));
            QVERIFY(exec::tensorOf(b).is_same(t));
            exec::TensorHandle c = std::move(b); // a move: none more, the source emptied
            QCOMPARE(t.use_count(), std::size_t(3));
            QVERIFY(!b.defined());
            b = c;
            QCOMPARE(t.use_count(), std::size_t(4));
            b = exec::TensorHandle();
            QCOMPARE(t.use_count(), std::size_t(3));
            exec::TensorHandle& same = c;
            c = same; // self-assignment keeps the reference
            c = std::move(same);
            QCOMPARE(t.use_count(), std::size_t(3));
            QVERIFY(c.defined());
            std::vector<exec::TensorHandle> many(100, a);
            QCOMPARE(t.use_count(), std::size_t(103));
            many.resize(10);
            QCOMPARE(t.use_count(), std::size_t(13));
        }
        QCOMPARE(t.use_count(), std::size_t(1)); // every handle gave its reference back
        const exec::TensorHandle empty;
        QVERIFY(!empty.defined());
        QVERIFY(empty.data() == nullptr);
        QCOMPARE(empty.numel(), std::int64_t(0));
        QVERIFY(!exec::tensorOf(empty).defined());
    }

    void repeatedRunsFaultNoPagesIn()
    {
        if (!exec::HostMemoryHold::effective()) {
            QSKIP("not glibc, or malloc tuned through the environment: the policy leaves it alone");
        }
        exec::detail::keepFreedHostMemory();
        allocationRound(); // the first round faults its 48 MiB in
        const long second = allocationRound();
        // 48 MiB is 12,288 pages; glibc's defaults give most of them back and fault them again.
        QVERIFY2(second < 1000, std::to_string(second).c_str());
        exec::detail::releaseFreedHostMemory();
    }

    // Each run gives back what it freed when it ends; under a hold the next run reuses it.
    void aHoldKeepsMemoryBetweenRuns()
    {
        if (!exec::HostMemoryHold::effective()) {
            QSKIP("not glibc, or malloc tuned through the environment: the policy leaves it alone");
        }
        auto g = chain();
        QVERIFY(g);
        auto in = std::make_shared<exec::ValueStore>();
        in->set("x", exec::makeHandle(at::ones({1024, 1024})));
        QVERIFY(runFaults(*g, in) >= 0); // the first run faults its intermediates in
        // Without a hold the second run faults them in again (6 x 1,024 pages made; at least
        // the two alive together at a time, 2,048, given back and taken anew).
        const long apart = runFaults(*g, in);
        QVERIFY2(apart > 2000, std::to_string(apart).c_str());
        // Under a hold the heap may still grow once where the runs before left it in pieces
        // (a block of 1,024 pages): the fewest faults of three runs after the first.
        long held = -1;
        {
            const exec::HostMemoryHold hold;
            const exec::HostMemoryHold nested; // holds nest
            QVERIFY(runFaults(*g, in) >= 0);
            for (int i = 0; i < 3; ++i) {
                const long f = runFaults(*g, in);
                QVERIFY(f >= 0);
                held = held < 0 ? f : std::min(held, f);
            }
        }
        QVERIFY2(held < 500, std::to_string(held).c_str());
        // The last hold ended: given back, so the next run faults again.
        const long after = runFaults(*g, in);
        qInfo("page faults of a run: %ld apart, %ld held, %ld after the hold", apart, held, after);
        QVERIFY2(after > 2000, std::to_string(after).c_str());
    }
};

QTEST_GUILESS_MAIN(TestExecutor)
#include "tst_executor.moc"

FXSCOPE_TEST_END
