// The region compiler: for one region of a graph and the tensors it will run on, lowers and
// prints C++ (core/codegen), looks the artifact up in the cache (core/cache), else builds it with
// the host compiler, loads it, verifies it against the eager interpreter the first time (a
// mismatch marks the entry bad for good) and times both. Whatever fails, the region falls back to
// LibTorch and the caller's run goes on. Synchronous; never throws.
#pragma once

#include "core/cache/cache_store.h"
#include "core/cache/reason.h"
#include "core/compile/host_compiler.h"
#include "core/exec/tensor_handle.h"
#include "core/graph/graph.h"

#include <memory>
#include <string>
#include <vector>

namespace fxs::compile {

struct RegionSpec {
    std::string id;                   // "r0"
    std::vector<graph::NodeId> nodes; // any order
    std::string options;              // region options text (part of the key)
};

struct CompileOptions {
    CompilerConfig compiler;
    cache::CacheStore* store = nullptr; // null: no cache (always build, artifacts in a temp dir)
    // Timed runs of eager and compiled (after one warm-up). Outputs are compared with eager on
    // every run: a first build that mismatches is stored as bad, a hit that mismatches is
    // marked bad; either way the region falls back.
    int timingRepeats = 5;
    // Where each region's schedule, loop IR, generated source and pass times are written
    // (<dir>/<region id>.schedule.txt, .ir.txt, .cpp, .passes.txt). Empty: the directory in
    // $FXSCOPE_DUMP_CODEGEN when it is set, else no dump (Halide's HL_DEBUG_CODEGEN is the
    // model).
    std::string dumpDir;
};

// One pass of a region's compilation and its wall time.
struct PassTime {
    std::string name; // "canonicalize", "eager", "schedule", "print", "key", "lookup", ...
    double ms = 0;
};

enum class RegionState : std::uint8_t { Hit, Miss, Fallback };
std::string_view regionStateName(RegionState s); // "hit", "miss", "fallback"

struct RegionOutcome {
    std::string id;
    int nodes = 0;
    // Nodes left to LibTorch (extern steps of the schedule: mm, convolution, ...) when the
    // region compiled; the other nodes run in generated kernels.
    int externNodes = 0;
    RegionState state = RegionState::Fallback;
    // Why, numbered (cache/reason.h): a hit, a miss and the change that caused it, a bypass of
    // the cache, or the cause of a fallback. The headline is made from it.
    cache::Reason reason = cache::Reason::None;
    std::string headline; // hit: which entry and what it saved; miss: why; fallback: reason
    std::string key;      // cache key (empty when lowering failed)
    std::string transcript; // the key's components, readable
    double compileMs = 0;   // build time on a miss, lookup+load on a hit
    double eagerMs = 0;     // mean over timingRepeats, LibTorch interpreter on the region
    double compiledMs = 0;  // mean over timingRepeats; equals eagerMs on fallback
    std::vector<double> compiledSamplesMs; // each timed run of the compiled region (spread)
    double maxAbsErr = 0;   // compiled vs eager, over finite values
    std::string source;     // generated C++ (when lowering succeeded)
    std::string buildCommand;     // a failed build: the command line
    std::string buildDiagnostics; // a failed build: the compiler's output
    // The region's outputs (compiled, or eager on fallback) in canonical order: region nodes
    // read outside the region, in graph order; outputNames names them.
    std::vector<exec::TensorHandle> outputs;
    std::vector<std::string> outputNames;
    std::vector<PassTime> passes; // in the order they ran
};

// Tolerances of the verification step, by element type (exact for int64/bool).
struct Tolerance {
    double rtol = 0;
    double atol = 0;
};
Tolerance toleranceFor(graph::DType t);

class RegionCompiler {
public:
    explicit RegionCompiler(CompileOptions options);
    ~RegionCompiler();

    // values: tensors by node name holding every region input (e.g. RunReport::kept).
    RegionOutcome compileAndRun(const graph::Graph& graph, const RegionSpec& region,
                                const exec::ValueStore& values);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// The LibTorch version the engine runs ("1.13.0"), a cache key component.
std::string libtorchVersion();

} // namespace fxs::compile
