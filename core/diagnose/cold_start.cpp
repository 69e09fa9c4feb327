#include "core/diagnose/cold_start.h"

#include "core/diagnose/compile_metrics.h"
#include "core/trace_profile/compile_profile.h"
#include "core/util/strings.h"

#include <algorithm>
#include <set>

namespace fxs::diagnose {

namespace {

// Phase names that start a category (the phase and everything under it, unless a descendant
// names another category). Matched as prefixes; first match wins.
struct CategoryRule {
    std::string_view prefix;
    PhaseCategory category;
};

constexpr CategoryRule kRules[] = {
    // Cache: key computation, lookups, loads and saves (Triton bundles are cache payloads).
    {"inductor_codecache_torch_key", PhaseCategory::Cache},
    {"AOTAutogradCache.", PhaseCategory::Cache},
    {"FxGraphCache.", PhaseCategory::Cache},
    {"TritonBundler.", PhaseCategory::Cache},
    {"autograd_cache_", PhaseCategory::Cache},
    {"fx_graph_cache_", PhaseCategory::Cache},
    // Inductor: lowering, scheduling, codegen, Triton compiles and autotuning.
    {"inductor_compile", PhaseCategory::Inductor},
    {"compile_fx.", PhaseCategory::Inductor},
    {"fx_codegen_and_compile", PhaseCategory::Inductor},
    {"CachingAutotuner.", PhaseCategory::Inductor},
    {"async_compile.", PhaseCategory::Inductor},
    {"StaticAutotunerFuture.", PhaseCategory::Inductor},
    {"PyCodeCache.", PhaseCategory::Inductor},
    {"GraphLowering.", PhaseCategory::Inductor},
    {"Scheduler.", PhaseCategory::Inductor},
    {"code_gen", PhaseCategory::Inductor},
    // AOTAutograd: tracing the joint graph, partitioning, the lazily compiled backward.
    {"create_aot_dispatcher_function", PhaseCategory::Aot},
    {"aot_", PhaseCategory::Aot},
    {"min_cut_rematerialization_partition", PhaseCategory::Aot},
    {"entire_backward_compile", PhaseCategory::Aot},
    // Dynamo: the frame itself (tracing, guards, restarts).
    {"dynamo", PhaseCategory::Dynamo},
    {"entire_frame_compile", PhaseCategory::Dynamo},
};

void addTo(PhaseTimes& t, PhaseCategory c, double seconds)
{
    switch (c) {
    case PhaseCategory::Dynamo: t.dynamoS += seconds; break;
    case PhaseCategory::Aot: t.aotS += seconds; break;
    case PhaseCategory::Inductor: t.inductorS += seconds; break;
    case PhaseCategory::Cache: t.cacheS += seconds; break;
    }
}

// Gives the interval [start, end] of `phase` to categories: children in start order, each
// clipped to what its parent and earlier siblings left, the rest to the phase's own category.
// The amounts added sum to end - start exactly.
void attribute(const profile::Phase& phase, double start, double end, PhaseCategory inherited,
               PhaseTimes& out)
{
    const PhaseCategory cat = categoryOf(phase.name).value_or(inherited);
    std::vector<const profile::Phase*> children;
    for (const auto& c : phase.children) {
        children.push_back(&c);
    }
    std::sort(children.begin(), children.end(),
              [](const auto* a, const auto* b) { return a->startUs < b->startUs; });
    double cursor = start;
    double inChildren = 0.0;
    for (const auto* c : children) {
        const double s = std::max(c->startUs, cursor);
        const double e = std::min(c->endUs, end);
        if (e <= s) {
            continue;
        }
        attribute(*c, s, e, cat, out);
        inChildren += e - s;
        cursor = e;
    }
    addTo(out, cat, std::max(0.0, (end - start) - inChildren) / 1e6);
}

std::set<int> eventRanks(const model::Run& run)
{
    std::set<int> ranks;
    for (const auto& e : run.events) {
        ranks.insert(e.rank);
    }
    return ranks;
}

void addProfiled(const profile::CompileProfileResult& profile, int rank, CompileTimes& out)
{
    for (const auto& c : profile.compiles) {
        if (!c.compileId.valid() || c.phases.empty()) {
            continue;
        }
        CompileTime& t = out[{rank, c.compileId.withoutAttempt()}];
        for (const auto& p : c.phases) {
            attribute(p, p.startUs, std::max(p.startUs, p.endUs), PhaseCategory::Dynamo,
                      t.phases);
        }
        t.totalS = t.phases.total();
    }
}

// Compiles with metrics but no chromium phases: Dynamo = frame − backend, AOT = backend −
// Inductor; a backward's compile is Inductor's.
void addFromMetrics(const model::Run& run, CompileTimes& out)
{
    std::set<CompileKey> profiled;
    for (const auto& [key, t] : out) {
        if (t.totalS > 0.0) {
            profiled.insert(key); // a damaged event that gave no time: metrics decide
        }
    }
    for (const auto& m : readCompileMetrics(run)) {
        const CompileKey key{m.rank, m.compileId};
        if (profiled.count(key)) {
            continue;
        }
        CompileTime& t = out[key];
        if (!t.fromMetrics) {
            t = {}; // a profiled compile of no time: start again from its metrics
        }
        t.fromMetrics = true;
        if (m.backward) {
            t.phases.inductorS += m.inductorS;
            t.phases.aotS += std::max(0.0, m.entireFrameS - m.inductorS);
        } else {
            t.phases.dynamoS += std::max(0.0, m.entireFrameS - m.backendS);
            t.phases.aotS += std::max(0.0, m.backendS - m.inductorS);
            t.phases.inductorS += m.inductorS;
        }
        t.totalS = t.phases.total();
    }
}

} // namespace

std::optional<PhaseCategory> categoryOf(std::string_view name)
{
    for (const auto& rule : kRules) {
        if (startsWith(name, rule.prefix)) {
            return rule.category;
        }
    }
    return std::nullopt;
}

CompileTimes compileTimes(const model::Run& run)
{
    CompileTimes out;
    const auto ranks = eventRanks(run);
    if (ranks.size() <= 1) {
        addProfiled(profile::buildCompileProfile(run), ranks.empty() ? -1 : *ranks.begin(), out);
    } else {
        for (int rank : ranks) {
            addProfiled(profile::buildCompileProfile(run, rank), rank, out);
        }
    }
    addFromMetrics(run, out);
    return out;
}

double compileSeconds(const CompileTimes& times, int rank, const model::CompileId& id)
{
    const auto it = times.find({rank, id.withoutAttempt()});
    return it == times.end() ? 0.0 : it->second.totalS;
}

std::vector<Frame> framesOf(const model::Run& run, int runIndex, const CompileTimes& times)
{
    // (rank, session, frame id): after torch._dynamo.reset() frame 0 is another function.
    std::map<std::tuple<int, int, int>, Frame> frames;
    for (const auto& [key, t] : times) {
        const auto& [rank, id] = key;
        Frame& f = frames[{rank, id.session, id.frameId}];
        f.run = runIndex;
        f.rank = rank;
        f.frameId = id.frameId;
        f.compileIds.push_back(id);
        f.totalS += t.totalS;
        f.phases.dynamoS += t.phases.dynamoS;
        f.phases.aotS += t.phases.aotS;
        f.phases.inductorS += t.phases.inductorS;
        f.phases.cacheS += t.phases.cacheS;
        f.fromMetrics = f.fromMetrics || t.fromMetrics;
    }
    for (const auto& m : readCompileMetrics(run)) {
        auto it = frames.find({m.rank, m.compileId.session, m.compileId.frameId});
        if (it != frames.end() && it->second.function.empty() && !m.function.empty()) {
            it->second.function = m.function;
            it->second.file = m.file;
            it->second.line = m.firstLine;
        }
    }
    std::vector<Frame> out;
    for (auto& [key, f] : frames) {
        std::sort(f.compileIds.begin(), f.compileIds.end());
        out.push_back(std::move(f));
    }
    return out;
}

} // namespace fxs::diagnose
