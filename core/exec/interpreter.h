// The reference ("eager") engine: runs an FX graph node by node through LibTorch's dispatcher,
// with synthesised or user-given inputs, per-node timing, peak memory and output summaries.
// Compiled regions are checked and timed against it. Not an optimiser: it runs what the graph
// says, one operator at a time. Synchronous; never throws (LibTorch errors become Errors).
#pragma once

#include "core/exec/conv_weight_cache.h"
#include "core/exec/tensor_handle.h"
#include "core/graph/graph.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fxs::exec {

enum class DevicePref : std::uint8_t { Auto, Cpu, Cuda };

// How 2-D convolutions lay out their activations. Recorded: as the graph ran them (NCHW unless
// its inputs said otherwise). ChannelsLast: input and weight made channels_last (NHWC) before
// each non-transposed 4-D convolution, so its output is channels_last too and the ops after it
// keep that layout: Inductor's layout optimisation, which cuDNN's tensor-core kernels prefer.
// The values are the same; only strides (and speed) differ.
enum class ConvLayout : std::uint8_t { Recorded, ChannelsLast };

// A group of a graph's nodes that the caller runs itself instead of the engine (a compiled
// region, core/compile/compiled_graph.h): the engine hands `run` the values of `inputs` (all
// tensors) and stores what it returns as the values of `outputs`, in order. The group runs as
// one step once its inputs are made; the other nodes keep graph order around it. It must be
// convex (no path leaves it and comes back), else the run lists it as unsupported. run's Error
// stops the run (Error::where names the group).
struct Substitute {
    std::string name;                   // the step's name in RunReport::perNode ("r0")
    std::vector<graph::NodeId> nodes;   // the nodes it replaces
    std::vector<graph::NodeId> inputs;  // values it reads that are made outside it
    std::vector<graph::NodeId> outputs; // its values read outside it
    std::function<Result<std::vector<TensorHandle>>(const std::vector<TensorHandle>&)> run;
    // Before each replay of a CUDA graph that captured the group: brings state the capture read
    // (a copy kept between runs) up to date with its sources, outside the graph. Empty: none.
    std::function<Status()> beforeReplay;
};

struct RunOptions {
    std::uint64_t seed = 0;                      // seeds input synthesis
    int repeat = 1;                              // timed runs; >1 adds one untimed warm-up run
    std::map<std::string, std::int64_t> sizes;   // symbolic sizes: {"s0": 8}
    DevicePref device = DevicePref::Auto;        // Auto: CUDA when the graph says so and we can
    std::string inputsFile;                      // real inputs: torch.save({name: tensor}) file
    std::shared_ptr<const ValueStore> inputs;    // inputs given in memory (name -> tensor)
    graph::GraphPtr forwardGraph;                // run this first and feed the graph from it
    std::vector<std::string> keep;               // node names whose values RunReport::kept holds
    bool perNodeTiming = true;                   // time each node (syncs the device per node)
    // With perNodeTiming on CUDA: false times each node's host work only (no sync per node:
    // where the host's time goes when nothing waits on the device; `run --host-times`).
    bool syncPerNode = true;
    // Fill RunReport::outputs with each output's summary, which reads every output on the host
    // (a device-to-host copy each on CUDA). Timing loops that drop the report turn it off, so a
    // profiler around their runs sees the graph's work only.
    bool summarizeOutputs = true;
    ConvLayout convLayout = ConvLayout::Recorded; // also for forwardGraph
    // ChannelsLast: where the weights' channels_last copies are kept, for a caller that runs
    // the graph several times (same weights: converted once). Null: a cache of this call's
    // own (its repeats reuse). Not used for forwardGraph.
    std::shared_ptr<ConvWeightCache> convWeights;
    // ChannelsLast: gives the options a weight cache of their own when they have none, so every
    // run made with copies of them (timed runs, a CUDA graph's warm-up and capture) reuses the
    // same converted weights.
    void shareConvWeights()
    {
        if (convLayout == ConvLayout::ChannelsLast && !convWeights) {
            convWeights = std::make_shared<ConvWeightCache>();
        }
    }
    // addmm with a 1-D bias as LibTorch's addmm or as mm + bias add, whichever runs faster for
    // its operands (timed once per process and shape; compiled runs on CUDA turn it on: cuBLASLt
    // picks slow kernels for some shapes). The values agree to rounding. Also for forwardGraph.
    bool chooseAddmm = false;
    // Float32 matrix products (aten::mm) on CUDA call cuBLAS directly, as mm itself would but
    // without its host work around the call (direct_calls.h); other products run as before. The
    // compiled runs on CUDA turn it on (GraphCompileOptions::directMatmuls), the eager engine's
    // runs keep LibTorch's mm. Also: addmm (with chooseAddmm) through cuBLASLt with its set-up
    // kept per shape, and, with ConvLayout::ChannelsLast, a convolution outside the compiled
    // steps through cuDNN's plan for its shape. Not for forwardGraph.
    bool directMatmuls = false;
    // View operators (t, transpose, permute, view, _unsafe_view, unsqueeze, squeeze, expand,
    // slice, select, detach, alias) made as aliases directly, without LibTorch's dispatcher: the
    // same sizes, strides, storage offset and storage, for a fraction of the host time. False:
    // through the dispatcher (`run --dispatched-views`, for comparisons). Also for forwardGraph.
    bool directViews = true;
    // Node groups run by the caller (the graph's own, not forwardGraph's); perNode lists each
    // as one entry (name, target "fxscope.substitute").
    std::vector<Substitute> substitutes;
    // Called on the running thread after each operator node ran (progress: which module the
    // run is in); never while a node is timed. Empty: none.
    std::function<void(graph::NodeId)> onNode;
    // Called on the running thread with true just before a run's first step (its inputs are
    // made) and with false after its last step was issued (on CUDA, perhaps not finished):
    // where a caller records the events that time the steps on the GPU. Empty: none.
    std::function<void(bool)> onSteps;
};

struct OutputSummary {
    std::string name;            // the returned node's name; "" for a literal (None)
    bool isTensor = false;
    std::vector<std::int64_t> shape;
    std::string dtype;           // "float32"
    double min = 0, max = 0, mean = 0; // over finite values (0 when none / non-float)
    std::int64_t nan = 0, inf = 0;
    std::string value;           // non-tensor values as text ("None", "3")
};

struct NodeTiming {
    std::string name;
    std::string target;          // "aten::mm.default"
    double ms = 0;               // mean wall time over the timed runs
};

struct UnsupportedOp {
    std::string node;
    std::string target;
    std::string reason;
};

struct RunReport {
    bool ok = false;
    std::string device;          // "cpu", "cuda:0"
    int nodesRun = 0;            // nodes executed in one run (call_function nodes)
    double totalMs = 0;          // mean wall time of one run
    std::int64_t peakBytes = 0;  // most bytes of distinct tensor storage held at once
    std::vector<OutputSummary> outputs;
    std::vector<NodeTiming> perNode;
    std::vector<UnsupportedOp> unsupported; // non-empty: nothing ran
    std::vector<std::string> notes;
    // ConvLayout::ChannelsLast: convolution weights copied to channels_last and copies reused
    // (ConvWeightCache), over this call's runs (warm-up included); a note says them too.
    int convWeightsConverted = 0;
    int convWeightsReused = 0;
    ValueStore kept;             // values of RunOptions::keep (and the outputs, as "output.<i>")
};

// While one exists, the engine's CPU runs keep the host memory they free for the runs after
// them instead of returning it when each run ends (the policy of one run's repeats): a caller
// that times graphs one run at a time, in rounds (the profile's whole-graph rounds), holds one
// across them, so that no run faults in again the pages the one before gave back. The last
// hold to end returns the memory. Thread-safe; nothing where the C library is not glibc or
// malloc was tuned through the environment.
class HostMemoryHold {
public:
    HostMemoryHold();
    ~HostMemoryHold();
    HostMemoryHold(const HostMemoryHold&) = delete;
    HostMemoryHold& operator=(const HostMemoryHold&) = delete;
    // Whether holds change anything here (glibc, malloc not tuned through the environment).
    static bool effective();
};

class Interpreter {
public:
    // Lists every node the engine cannot run (unknown operator, unsupported argument), without
    // running anything.
    static std::vector<UnsupportedOp> checkSupport(const graph::Graph& graph);

    // Runs the graph. Returns a report with ok == false and `unsupported` filled when some node
    // cannot run (nothing runs then); an Error for bad options, inputs that cannot be made or
    // matched, and operator failures (Error::where names the node).
    static Result<RunReport> run(const graph::Graph& graph, const RunOptions& options,
                                 const CancelToken& cancel = CancelToken::none());
};

} // namespace fxs::exec
