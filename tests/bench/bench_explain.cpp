// explainRuns end to end on two generated runs of 1,000 lookups × 550 components (the issue's
// target: under 1 s). Lookups are shaped like PyTorch 2.11's: ~510 inductor_config lines shared
// by every key, example_inputs, fx_kwargs, a gm of ~40 statements, environment lines; run B
// changes max_fusion_size everywhere and the graph code of every tenth graph. Variants: partners
// found by position (same compile ids), by similarity (B's compile ids all new), and one run
// explained within itself.
#include "core/explain/explainer.h"

#include <benchmark/benchmark.h>

#include <string>

namespace {

using namespace fxs;

constexpr int kLookups = 1000;
constexpr int kComponents = 550;
constexpr int kConfigEntries = 510;

std::string digestOf(const std::string& name, const std::string& value)
{
    std::size_t h = std::hash<std::string>{}(name + '\x1f' + value);
    std::string d;
    for (int i = 0; i < 52; ++i) {
        d += "abcdefghijklmnopqrstuvwxyz234567"[h % 32];
        h = h / 32 + (h % 32) * 0x9E3779B97F4A7C15ull + static_cast<std::size_t>(i);
    }
    return d;
}

model::KeyComponent component(std::string family, std::string index, std::string value)
{
    model::KeyComponent c;
    c.name = index.empty() ? family : family + "[" + index + "]";
    c.family = std::move(family);
    c.index = std::move(index);
    c.value = std::move(value);
    c.digest = digestOf(c.name, c.value);
    return c;
}

std::string graphCode(int graph, bool variant)
{
    std::string code = "GraphModule()\n\n\n\ndef forward(self, primals_1, primals_2):\n";
    std::string prev = "primals_1";
    for (int k = 0; k < 40; ++k) {
        const std::string name = "t" + std::to_string(k);
        const bool changed = variant && k == 20;
        code += "    " + name + " = torch.ops.aten." + (changed ? "cos" : "sin") +
                ".default(" + prev + ")\n";
        prev = name;
    }
    code += "    mm = torch.ops.aten.mm.default(" + prev + ", primals_2)\n";
    code += "    return (mm, " + std::to_string(graph) + ")\n    ";
    return code;
}

model::CacheLookup makeLookup(int i, bool runB, bool shiftIds)
{
    model::CacheLookup l;
    const int frame = i / 3;
    l.cache = i % 3 == 0 ? model::CacheKind::AotAutograd : model::CacheKind::FxGraph;
    l.state = model::CacheState::Miss;
    l.detailedStatus = "full_miss";
    l.compileId.frameId = frame + (shiftIds ? 100000 : 0);
    l.compileId.frameCompileId = 0;
    l.key = (l.cache == model::CacheKind::FxGraph ? "f" : "a") + digestOf(std::to_string(i),
                                                                          runB ? "b" : "a");
    l.timeTakenNs = 1000000 + i;
    auto& cs = l.components;
    cs.reserve(kComponents);
    cs.push_back(component("inductor_config", "max_fusion_size", runB ? "32" : "64"));
    for (int k = 1; k < kConfigEntries; ++k) {
        cs.push_back(component("inductor_config", "option_" + std::to_string(k),
                               k % 3 ? "True" : "False"));
    }
    for (int k = 0; k < 24; ++k) {
        cs.push_back(component("example_inputs", std::to_string(k),
                               "TensorMetadata(dtype=torch.float32, shape=torch.Size([" +
                                   std::to_string(64 + frame % 7) + ", 64]), stride=(64, 1), "
                                   "device=device(type='cuda', index=0), requires_grad=False)"));
    }
    for (int k = 0; k < kComponents - kConfigEntries - 24 - 4; ++k) {
        cs.push_back(component("fx_kwargs", "kw" + std::to_string(k), std::to_string(i % 3)));
    }
    cs.push_back(component("gm", "", graphCode(frame, runB && frame % 10 == 0)));
    cs.push_back(component("torch_version", "", "<binary>"));
    cs.push_back(component("system_info", "device", "{'name': 'NVIDIA H200'}"));
    cs.push_back(component("cache_key_tag", "", ""));
    return l;
}

model::Run makeRun(bool runB, bool shiftIds)
{
    model::Run r;
    r.path = runB ? "B" : "A";
    r.lookups.reserve(kLookups);
    for (int i = 0; i < kLookups; ++i) {
        r.lookups.push_back(makeLookup(i, runB, shiftIds));
    }
    return r;
}

void checkShape(const model::Run& r)
{
    for (const auto& l : r.lookups) {
        if (l.components.size() != static_cast<std::size_t>(kComponents)) {
            std::abort();
        }
    }
}

void BM_ExplainRuns(benchmark::State& state)
{
    const bool shifted = state.range(0) != 0;
    const model::Run a = makeRun(false, false);
    const model::Run b = makeRun(true, shifted);
    checkShape(a);
    checkShape(b);
    std::size_t changes = 0;
    for (auto _ : state) {
        auto ex = explain::explainRuns(a, b);
        if (!ex.ok() || ex->lookups.size() != static_cast<std::size_t>(kLookups)) {
            state.SkipWithError("explainRuns failed");
            break;
        }
        changes = ex->lookups.front().diff.changes.size();
        benchmark::DoNotOptimize(ex);
    }
    state.counters["lookups"] = kLookups;
    state.counters["components"] = kComponents;
    state.counters["changes_first"] = static_cast<double>(changes);
    state.SetItemsProcessed(state.iterations() * kLookups);
}
BENCHMARK(BM_ExplainRuns)->Arg(0)->ArgName("new_ids")->Arg(1)->Unit(benchmark::kMillisecond);

void BM_ExplainWithin(benchmark::State& state)
{
    model::Run run = makeRun(false, false);
    // The second half repeats the first half's graphs as recompiles with new config.
    const model::Run b = makeRun(true, false);
    for (int i = kLookups / 2; i < kLookups; ++i) {
        run.lookups[i] = b.lookups[i - kLookups / 2];
        run.lookups[i].compileId.frameCompileId = 1;
    }
    for (auto _ : state) {
        auto ex = explain::explainWithin(run);
        benchmark::DoNotOptimize(ex);
    }
    state.SetItemsProcessed(state.iterations() * kLookups);
}
BENCHMARK(BM_ExplainWithin)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
