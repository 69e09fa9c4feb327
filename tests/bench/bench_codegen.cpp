// Region compiler benchmarks: generated kernels vs LibTorch eager vs a memory-bound floor (a
// generated out = x + y over the same inputs/outputs), all in one run; cold compile; cache hit
// (lookup + write + dlopen); a remote hit from a redis-server on localhost (download, checksum
// and HMAC, stored locally, write, dlopen); lookup among 10,000 entries.
// Run: bench_codegen --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include "core/cache/cache_paths.h"
#include "core/cache/cache_store.h"
#include "core/codegen/cpp_printer.h"
#include "core/codegen/lowering.h"
#include "core/compile/host_compiler.h"
#include "core/compile/shared_library.h"
#include "core/graph/graph_builder.h"
#include "core/remote/remote_tier.h"
#include "core/util/file_reader.h"

#include <ATen/ATen.h>
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <memory>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

using namespace fxs;
using namespace fxs::graph;

namespace {

constexpr std::int64_t kRows = 16384; // 16M elements: rows of 1024
constexpr std::int64_t kCols = 1024;

TensorMeta meta(std::vector<std::int64_t> sizes)
{
    TensorMeta m;
    m.dtype = DType::Float32;
    for (auto s : sizes) {
        m.sizes.push_back(SymInt::of(s));
    }
    return m;
}

Argument ref(NodeId id) { return Argument::ref(id); }

struct Built {
    codegen::RegionProgram program;
    std::shared_ptr<compile::SharedLibrary> lib;
    std::string source;
};

std::string workDir()
{
    static std::string dir = [] {
        char tmpl[] = "/tmp/fxscope-bench-XXXXXX";
        return std::string(::mkdtemp(tmpl) ? tmpl : "/tmp");
    }();
    return dir;
}

// Lowers, prints, builds and loads a region; aborts the benchmark program on failure.
Built build(const Graph& g, const std::vector<NodeId>& order, const std::vector<NodeId>& in,
            const std::vector<NodeId>& out, const std::string& name)
{
    codegen::LoweringRequest req{&g, name, order, in, out, {}};
    auto p = codegen::lowerRegion(req);
    if (!p) {
        std::fprintf(stderr, "lowering failed: %s\n", p.error().toString().c_str());
        std::exit(1);
    }
    Built b{*p, nullptr, codegen::printRegion(*p)};
    const std::string stem = workDir() + "/" + name;
    (void)cache::writePrivateFile(stem + ".cpp", b.source);
    auto r = compile::buildSharedObject({}, stem + ".cpp", stem + ".so");
    if (!r || !r->ok) {
        std::fprintf(stderr, "build failed: %s\n", r ? r->diagnostics.c_str() : "no compiler");
        std::exit(1);
    }
    auto lib = compile::SharedLibrary::load(stem + ".so");
    if (!lib) {
        std::fprintf(stderr, "load failed: %s\n", lib.error().toString().c_str());
        std::exit(1);
    }
    b.lib = *lib;
    return b;
}

struct Chain {
    GraphPtr graph;
    std::vector<NodeId> order, in, out;
};

Chain chainGraph()
{
    const std::vector<std::int64_t> s{kRows, kCols};
    GraphBuilder b;
    const NodeId x = b.placeholder("x", meta(s));
    const NodeId y = b.placeholder("y", meta(s));
    const NodeId sn = b.call("sin", "aten::sin.default", {ref(x)}, {}, meta(s));
    const NodeId m = b.call("mul", "aten::mul.Tensor", {ref(sn), ref(y)}, {}, meta(s));
    const NodeId a = b.call("add", "aten::add.Tensor", {ref(m), Argument::integer(1)}, {}, meta(s));
    const NodeId r = b.call("relu", "aten::relu.default", {ref(a)}, {}, meta(s));
    const NodeId n = b.call("neg", "aten::neg.default", {ref(r)}, {}, meta(s));
    const NodeId h = b.call("mul_1", "aten::mul.Tensor", {ref(n), Argument::real(0.5)}, {}, meta(s));
    const NodeId e = b.call("exp", "aten::exp.default", {ref(h)}, {}, meta(s));
    const NodeId t = b.call("tanh", "aten::tanh.default", {ref(y)}, {}, meta(s));
    const NodeId a1 = b.call("add_1", "aten::add.Tensor", {ref(e), ref(t)}, {}, meta(s));
    const NodeId sg = b.call("sigmoid", "aten::sigmoid.default", {ref(a1)}, {}, meta(s));
    const NodeId o = b.call("mul_2", "aten::mul.Tensor", {ref(sg), ref(x)}, {}, meta(s));
    b.output({ref(o)});
    return {*b.build(), {sn, m, a, r, n, h, e, t, a1, sg, o}, {x, y}, {o}};
}

Chain softmaxLnGraph()
{
    const std::vector<std::int64_t> s{kRows, kCols};
    GraphBuilder b;
    const NodeId x = b.placeholder("x", meta(s));
    const NodeId sm = b.call("_softmax", "aten::_softmax.default",
                             {ref(x), Argument::integer(-1), Argument::boolean(false)}, {}, meta(s));
    const NodeId add = b.call("add", "aten::add.Tensor", {ref(sm), ref(x)}, {}, meta(s));
    const NodeId ln = b.call("native_layer_norm", "aten::native_layer_norm.default",
                             {ref(add), Argument::list({Argument::integer(kCols)}), Argument::none(),
                              Argument::none(), Argument::real(1e-5)});
    const NodeId o = b.getitem("getitem", ln, 0, meta(s));
    b.output({ref(o)});
    return {*b.build(), {sm, add, ln, o}, {x}, {o}};
}

// out = x + y (or x + 1): what any kernel over these buffers must at least pay.
Chain floorGraph(int inputs)
{
    const std::vector<std::int64_t> s{kRows, kCols};
    GraphBuilder b;
    const NodeId x = b.placeholder("x", meta(s));
    const NodeId y = inputs > 1 ? b.placeholder("y", meta(s)) : x;
    const NodeId a = b.call("add", "aten::add.Tensor",
                            {ref(x), inputs > 1 ? ref(y) : Argument::integer(1)}, {}, meta(s));
    b.output({ref(a)});
    return {*b.build(), {a}, inputs > 1 ? std::vector<NodeId>{x, y} : std::vector<NodeId>{x}, {a}};
}

void callKernel(const Built& k, const std::vector<at::Tensor>& in, at::Tensor& out)
{
    std::vector<void*> ip;
    std::vector<std::int64_t> dims;
    for (const auto& t : in) {
        ip.push_back(t.data_ptr());
        dims.push_back(t.dim());
        dims.insert(dims.end(), t.sizes().begin(), t.sizes().end());
        dims.insert(dims.end(), t.strides().begin(), t.strides().end());
    }
    void* op = out.data_ptr();
    if (k.lib->entry()(ip.data(), &op, dims.data(), std::int64_t(dims.size())) != 0) {
        std::fprintf(stderr, "kernel refused its inputs\n");
        std::exit(1);
    }
}

const at::Tensor& inputX()
{
    static at::Tensor x = at::randn({kRows, kCols});
    return x;
}
const at::Tensor& inputY()
{
    static at::Tensor y = at::randn({kRows, kCols});
    return y;
}

void setBytes(benchmark::State& state, int tensorsTouched)
{
    state.SetBytesProcessed(state.iterations() * kRows * kCols * 4 * tensorsTouched);
}

// --- chain8 ------------------------------------------------------------------------------------
void BM_Chain8_Eager(benchmark::State& state)
{
    const at::Tensor& x = inputX();
    const at::Tensor& y = inputY();
    for (auto _ : state) {
        at::Tensor o = at::sigmoid(at::exp(-at::relu(at::sin(x) * y + 1) * 0.5) + at::tanh(y)) * x;
        benchmark::DoNotOptimize(o.data_ptr());
    }
    setBytes(state, 3);
}

void BM_Chain8_Compiled(benchmark::State& state)
{
    static const Chain c = chainGraph();
    static const Built k = build(*c.graph, c.order, c.in, c.out, "chain8");
    at::Tensor out = at::empty({kRows, kCols});
    for (auto _ : state) {
        callKernel(k, {inputX(), inputY()}, out);
        benchmark::DoNotOptimize(out.data_ptr());
    }
    setBytes(state, 3);
}

void BM_Chain8_Floor(benchmark::State& state)
{
    static const Chain c = floorGraph(2);
    static const Built k = build(*c.graph, c.order, c.in, c.out, "floor2");
    at::Tensor out = at::empty({kRows, kCols});
    for (auto _ : state) {
        callKernel(k, {inputX(), inputY()}, out);
        benchmark::DoNotOptimize(out.data_ptr());
    }
    setBytes(state, 3);
}

// --- layer_norm(softmax(X, -1) + X) ---------------------------------------------------------------
void BM_SoftmaxLn_Eager(benchmark::State& state)
{
    const at::Tensor& x = inputX();
    for (auto _ : state) {
        at::Tensor o = at::layer_norm(at::softmax(x, -1) + x, {kCols});
        benchmark::DoNotOptimize(o.data_ptr());
    }
    setBytes(state, 2);
}

void BM_SoftmaxLn_Compiled(benchmark::State& state)
{
    static const Chain c = softmaxLnGraph();
    static const Built k = build(*c.graph, c.order, c.in, c.out, "softmax_ln");
    at::Tensor out = at::empty({kRows, kCols});
    for (auto _ : state) {
        callKernel(k, {inputX()}, out);
        benchmark::DoNotOptimize(out.data_ptr());
    }
    setBytes(state, 2);
}

void BM_SoftmaxLn_Floor(benchmark::State& state)
{
    static const Chain c = floorGraph(1);
    static const Built k = build(*c.graph, c.order, c.in, c.out, "floor1");
    at::Tensor out = at::empty({kRows, kCols});
    for (auto _ : state) {
        callKernel(k, {inputX()}, out);
        benchmark::DoNotOptimize(out.data_ptr());
    }
    setBytes(state, 2);
}

// --- compile and cache -------------------------------------------------------------------------
void BM_ColdCompile_Chain8(benchmark::State& state)
{
    const Chain c = chainGraph();
    int n = 0;
    for (auto _ : state) {
        // Lower + print + g++ + dlopen; a new file each time so nothing is reused.
        const Built k = build(*c.graph, c.order, c.in, c.out, "cold" + std::to_string(n++));
        benchmark::DoNotOptimize(k.lib.get());
    }
}

std::unique_ptr<cache::CacheStore> openStore(const std::string& name)
{
    cache::StoreOptions o;
    o.path = workDir() + "/" + name + "/cache.db";
    auto s = cache::CacheStore::open(o);
    if (!s) {
        std::fprintf(stderr, "store: %s\n", s.error().toString().c_str());
        std::exit(1);
    }
    return std::move(*s);
}

cache::EntryInfo entryFor(const std::string& region, const std::string& input)
{
    cache::KeyBuilder kb;
    kb.add(cache::kLabelRegion, region).add(cache::inputLabel(0), input);
    cache::EntryInfo e;
    e.key = kb.key();
    e.components = kb.components();
    e.regionDigest = cache::regionDigest(e.components);
    e.compileMs = 500;
    return e;
}

// The local half of a hit: lookup (blob read and checked), materialize, dlopen; the library
// is unloaded untimed. False (and the benchmark skipped) when it fails.
bool lookupAndLoad(benchmark::State& state, cache::CacheStore& store, const std::string& key)
{
    auto r = store.lookup(key);
    auto path = r && r->entry ? store.materialize(*r->entry, cache::ArtifactKind::SharedObject)
                              : Result<std::string>(makeError(ErrorCode::Io, "no entry"));
    auto lib = path ? compile::SharedLibrary::load(*path) : path.error();
    if (!lib) {
        state.SkipWithError("load failed");
        return false;
    }
    benchmark::DoNotOptimize(lib->get());
    state.PauseTiming();
    lib->reset();
    state.ResumeTiming();
    return true;
}

// A hit as a fresh process sees it: read and checksum the row, write the .so, dlopen.
void BM_Hit_LookupAndLoad(benchmark::State& state)
{
    static const Chain c = chainGraph();
    static const Built k = build(*c.graph, c.order, c.in, c.out, "hit_src");
    auto store = openStore("hit");
    const auto so = readFile(workDir() + "/hit_src.so");
    const cache::EntryInfo e = entryFor("chain8", "dtype=float32");
    (void)store->insert(e, cache::Artifact::hostBuild(*so, k.source));
    for (auto _ : state) {
        // What a hit costs: read and check the blob, materialize (the file is there: compared,
        // not written), dlopen.
        if (!lookupAndLoad(state, *store, e.key)) {
            break;
        }
    }
}

// A redis-server on localhost for the remote benchmarks, stopped at exit; null when
// redis-server is not installed or does not answer.
class RedisProcess {
public:
    static RedisProcess* instance()
    {
        static std::unique_ptr<RedisProcess> r = start();
        return r.get();
    }
    ~RedisProcess()
    {
        ::kill(m_pid, SIGKILL);
        ::waitpid(m_pid, nullptr, 0);
    }
    std::string url() const { return "redis://127.0.0.1:" + std::to_string(m_port); }

private:
    static std::unique_ptr<RedisProcess> start()
    {
        auto r = std::make_unique<RedisProcess>();
        r->m_port = 20000 + ::getpid() % 20000;
        const std::string port = std::to_string(r->m_port);
        const std::string dir = workDir();
        const char* argv[] = {"redis-server", "--port", port.c_str(), "--bind", "127.0.0.1",
                              "--save", "", "--appendonly", "no", "--dir", dir.c_str(),
                              "--loglevel", "warning", nullptr};
        posix_spawn_file_actions_t quiet;
        posix_spawn_file_actions_init(&quiet);
        posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
        const int rc = ::posix_spawnp(&r->m_pid, "redis-server", &quiet, nullptr,
                                      const_cast<char* const*>(argv), environ);
        posix_spawn_file_actions_destroy(&quiet);
        if (rc != 0) {
            return nullptr;
        }
        for (int i = 0; i < 250; ++i) {
            if (remote::RedisClient::connect({"127.0.0.1", r->m_port, 0}).ok()) {
                return r;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return nullptr;
    }
    pid_t m_pid = 0;
    int m_port = 0;
};

// What a remote hit costs a machine that lacks the entry, as the compile flow does it: MGET of
// metadata and blob, SHA-256 and HMAC checks, unpack, insert into the local store, lookup,
// write the .so, dlopen. The local entry is removed between iterations (untimed).
void BM_RemoteHit_FetchVerifyLoad(benchmark::State& state)
{
    RedisProcess* redis = RedisProcess::instance();
    if (!redis) {
        state.SkipWithError("redis-server is not installed or does not start");
        return;
    }
    static const Chain c = chainGraph();
    static const Built k = build(*c.graph, c.order, c.in, c.out, "hit_src");
    const auto so = readFile(workDir() + "/hit_src.so");
    remote::RemoteOptions ro;
    ro.url = redis->url();
    ro.teamKey = "bench team key";
    auto tier = remote::RemoteTier::open(ro);
    auto store = openStore("remote_hit");
    const cache::EntryInfo e = entryFor("chain8", "dtype=float32");
    (void)(*tier)->publish(e, cache::Artifact::hostBuild(*so, k.source), true);
    for (auto _ : state) {
        auto f = (*tier)->fetch(e.key);
        if (f.state != remote::FetchState::Hit || !store->insert(f.entry->info, f.entry->artifact)) {
            state.SkipWithError("remote fetch failed");
            break;
        }
        if (!lookupAndLoad(state, *store, e.key)) {
            break;
        }
        state.PauseTiming();
        (void)store->remove(e.key);
        state.ResumeTiming();
    }
    state.counters["artifact_bytes"] = static_cast<double>(so->size() + k.source.size());
}

void BM_Lookup_10000(benchmark::State& state)
{
    static std::unique_ptr<cache::CacheStore> store = [] {
        auto s = openStore("lookup10k");
        if (s->list()->size() < 10000) {
            const auto art = cache::Artifact::hostBuild(std::string(2048, 'x'), "// source");
            for (int i = 0; i < 10000; ++i) {
                (void)s->insert(entryFor("region " + std::to_string(i), "dtype=float32"), art);
            }
        }
        return s;
    }();
    int i = 0;
    for (auto _ : state) {
        auto r = store->lookup(entryFor("region " + std::to_string((i++ * 7919) % 10000),
                                        "dtype=float32").key);
        if (!r || r->state != cache::LookupState::Hit) {
            state.SkipWithError("lookup missed");
            break;
        }
        benchmark::DoNotOptimize(r->entry->info.hitCount);
    }
}

} // namespace

BENCHMARK(BM_Chain8_Eager)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Chain8_Compiled)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Chain8_Floor)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SoftmaxLn_Eager)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SoftmaxLn_Compiled)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SoftmaxLn_Floor)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ColdCompile_Chain8)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_Hit_LookupAndLoad)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_RemoteHit_FetchVerifyLoad)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Lookup_10000)->Unit(benchmark::kMicrosecond)->UseRealTime();

BENCHMARK_MAIN();
