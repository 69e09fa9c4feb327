// The fusion tests' check of a compiled region against the LibTorch eager interpreter
// (tst_column_reductions, tst_view_fusion; tst_cat_fusion takes maxDifference): the whole graph
// of a case as one region, its outputs matched with the graph's returned values by name. Test
// code only.
#pragma once

#include "core/exec/interpreter.h"
#include "tests/unit/compile/compile_test_support.h"
#include "tests/unit/compile/whole_graph_case.h"

#include <QtGlobal>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace fxs::test {

// Largest |a - b| / (1 + |b|) (relative) or |a - b| over finite values; infinity where NaN/Inf
// positions or sizes differ.
inline double maxDifference(const exec::TensorHandle& a, const exec::TensorHandle& b,
                            bool relative = true)
{
    if (a.sizes() != b.sizes()) {
        return INFINITY;
    }
    const auto x = a.toDoubles();
    const auto y = b.toDoubles();
    double m = 0;
    for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
        if (std::isfinite(x[i]) && std::isfinite(y[i])) {
            m = std::max(m, std::abs(x[i] - y[i]) / (relative ? 1 + std::abs(y[i]) : 1.0));
        } else if (!(std::isnan(x[i]) && std::isnan(y[i])) && x[i] != y[i]) {
            return INFINITY;
        }
    }
    return m;
}

// Runs the case eagerly on inputs synthesised from `seed`, compiles its region (cached in
// `store`) and runs it on the same inputs; diff: its outputs' largest relative maxDifference
// from the eager run's (infinity when an output is missing). A failing eager run is fatal.
inline compile::RegionOutcome compileAgainstEager(const WholeGraphCase& c,
                                                  cache::CacheStore* store, std::uint64_t seed,
                                                  double& diff)
{
    exec::RunOptions o;
    o.seed = seed;
    o.keep = c.keep;
    o.perNodeTiming = false;
    auto run = exec::Interpreter::run(*c.graph, o);
    if (!run || !run->ok) {
        qFatal("eager run failed: %s", run ? "unsupported" : run.error().toString().c_str());
    }
    compile::RegionCompiler rc(compileOptions(store, 1));
    auto out = rc.compileAndRun(*c.graph, {"r0", c.region, ""}, run->kept);
    const std::vector<graph::NodeId> returned = c.graph->returnedNodes();
    diff = out.outputs.empty() || out.outputs.size() != returned.size() ? INFINITY : 0.0;
    for (std::size_t i = 0; i < out.outputs.size() && i < out.outputNames.size(); ++i) {
        std::size_t k = 0;
        while (k < returned.size() && c.graph->node(returned[k]).name != out.outputNames[i]) {
            ++k;
        }
        const exec::TensorHandle* want = run->kept.find("output." + std::to_string(k));
        diff = want ? std::max(diff, maxDifference(out.outputs[i], *want)) : INFINITY;
    }
    return out;
}

} // namespace fxs::test
