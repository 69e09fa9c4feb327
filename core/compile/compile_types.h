// The region compiler's vocabulary, shared by its parts (kernel calls, target code, prepared
// regions, whole-graph compilation) and its callers (CLI, models): what to compile (RegionSpec,
// CompileOptions), what came of it (RegionOutcome, RegionState, PassTime) and the verification
// tolerances. Types only; the facade that does the work is region_compiler.h.
#pragma once

#include "core/cache/cache_store.h"
#include "core/cache/reason.h"
#include "core/codegen/cuda_printer.h"
#include "core/compile/host_compiler.h"
#include "core/exec/tensor_handle.h"
#include "core/graph/graph.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::remote {
class RemoteTier; // core/remote/remote_tier.h
}

namespace fxs::compile {

// A compiled region ready to run again on new tensors of the same layout (its schedule and the
// loaded kernels); core/compile/compiled_graph.h runs it in place of its nodes.
struct LoadedRegion;

struct RegionSpec {
    std::string id;                   // "r0"
    std::vector<graph::NodeId> nodes; // any order
    std::string options;              // region options text (part of the key)
};

// Where generated kernels run (RegionCompiler and compileGraphRegions).
enum class TargetDevice : std::uint8_t { Cpu, Cuda };
std::string_view targetDeviceName(TargetDevice d); // "cpu", "cuda"

struct CompileOptions {
    CompilerConfig compiler;
    TargetDevice device = TargetDevice::Cpu;
    int cudaArch = 0;               // SM to build for (90); 0: the GPU's, else sm_90
    codegen::CudaTuning cudaTuning; // launch parameters of the CUDA printer
    // Generate, build and cache only: no eager run, no verification, no timing; inputs from the
    // graph's meta. Regions end Built (or Hit when the cache has them) and their entries are
    // stored unverified: the first run that hits one verifies it.
    bool buildOnly = false;
    // Builds at once when several regions are compiled together (RegionCompiler::compileAll,
    // compileGraphRegions): each distinct key that missed is built (host compiler process or
    // NVRTC) on one of `jobs` threads while the regions are prepared, then verified and timed
    // one by one. 0: automatic, the machine's hardware threads but at most kMaxAutoJobs.
    int jobs = 0;
    cache::CacheStore* store = nullptr; // null: no cache (always build, artifacts in a temp dir)
    // The remote tier behind the store (null: none; ignored without a store). Looked up after a
    // local miss; a checked hit is stored locally, then loaded; new entries go to both.
    remote::RemoteTier* remote = nullptr;
    // Timed runs of eager and compiled (after one warm-up). Outputs are compared with eager on
    // every run: a first build that mismatches is stored as bad, a hit that mismatches is
    // marked bad; either way the region falls back.
    int timingRepeats = 5;
    // A hit of a verified entry runs eager and compiled once each (to verify) and reports the
    // timings measured when the entry was built, saved in the local store for this device;
    // true times it again (and saves the new timings), and judges anew an entry found slower
    // than eager before (stored verified when it now wins).
    bool retime = false;
    // Where each region's schedule, loop IR, generated source and pass times are written
    // (<dir>/<region id>.schedule.txt, .ir.txt, .cpp or .cu, .passes.txt). Empty: the directory in
    // $FXSCOPE_DUMP_CODEGEN when it is set, else no dump (Halide's HL_DEBUG_CODEGEN is the
    // model).
    std::string dumpDir;
    // Hand each region that compiled (hit or miss, verified) back as RegionOutcome::loaded, for
    // running the whole graph with it (compiled_graph.h).
    bool keepLoaded = false;
    // Keep only what wins: decides from a region's timings (means and max - min spreads, ms)
    // whether the compiled region lost to eager; it then falls back (slower_than_eager) and its
    // cache entry keeps the verdict. Empty: slowerThanEager. Tests inject timings through it.
    std::function<bool(double eagerMs, double eagerSpreadMs, double compiledMs,
                       double compiledSpreadMs)>
        slower;
};

// CompileOptions::jobs = 0 builds on this many threads at most: each host build is a compiler
// process of a few hundred MB (NVRTC much the same), and regions of a model have few distinct
// keys (7 for the GPT-12 forward on the CPU, 18 kernels for LLaMA-24 on CUDA).
constexpr int kMaxAutoJobs = 8;
// The builds at once that `jobs` asks for: itself when positive, else the hardware threads
// (at least 1, at most kMaxAutoJobs).
int buildJobs(int jobs);

// True when the compiled region is slower than eager beyond the spread of both: its mean exceeds
// eager's by more than the two spreads together (so noise alone does not drop a region).
bool slowerThanEager(double eagerMs, double eagerSpreadMs, double compiledMs,
                     double compiledSpreadMs);

// One pass of a region's compilation and its wall time.
struct PassTime {
    std::string name; // "canonicalize", "eager", "schedule", "print", "key", "lookup", ...
    double ms = 0;
};

enum class RegionState : std::uint8_t { Hit, Miss, Fallback, Built };
std::string_view regionStateName(RegionState s); // "hit", "miss", "fallback", "built"

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
    // CPU: means over timingRepeats (eager: the LibTorch interpreter on the region); CUDA:
    // medians of CUDA event times. compiledMs equals eagerMs on fallback.
    double eagerMs = 0;
    double compiledMs = 0;
    std::vector<double> compiledSamplesMs; // each timed run of the compiled region (spread)
    double maxAbsErr = 0;   // compiled vs eager, over finite values
    std::string device;     // where it ran: "cpu", "cuda:0" ("" when not run)
    std::string target;     // what the code was built for: "host" or "sm_90"
    // "wall mean" (CPU: host clock over the runs) or "cuda events median" (one event pair per
    // run on the stream, after a warm-up); spreads are max - min over the runs.
    std::string timing;
    // The timings are the ones saved with the cache entry (a verified hit), not measured now.
    bool timingsFromEntry = false;
    double eagerSpreadMs = 0;
    double compiledSpreadMs = 0;
    // CUDA: the mean of as many runs enqueued back to back (launch latency hidden); 0 on the CPU.
    double eagerBackToBackMs = 0;
    double compiledBackToBackMs = 0;
    std::int64_t bytesMoved = 0; // the region's inputs read once plus outputs written once
    std::string resources;       // CUDA: registers and local bytes per kernel
    int kernels = 0;             // generated kernels of its schedule (0 when not lowered)
    std::string source;     // generated C++ or CUDA (when lowering succeeded)
    std::string buildCommand;     // a failed build: the command line
    std::string buildDiagnostics; // a failed build: the compiler's output
    // The region's outputs (compiled, or eager on fallback) in canonical order: region nodes
    // read outside the region, in graph order; outputNames names them.
    std::vector<exec::TensorHandle> outputs;
    std::vector<std::string> outputNames;
    std::vector<PassTime> passes; // in the order they ran
    // CompileOptions::keepLoaded and the region compiled: the region, ready to run again.
    std::shared_ptr<const LoadedRegion> loaded;
};

// Tolerances of the verification step, by element type (exact for int64/bool).
struct Tolerance {
    double rtol = 0;
    double atol = 0;
};
Tolerance toleranceFor(graph::DType t);

} // namespace fxs::compile
