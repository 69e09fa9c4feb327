// What a TORCH_TRACE run says about each Inductor-compiled graph that the profiler can name:
// its FX graph cache key, compile id and kind, the kernel call sites of its output code
// (`name:N` debug handles) with their post-grad nodes, the post-grad → pre-grad node map and
// the parsed post-grad and pre-grad graphs. Read from the run only; never guesses a graph.
#pragma once

#include "core/graph/graph.h"
#include "core/model/compile_id.h"
#include "core/model/run.h"

#include <map>
#include <string>
#include <vector>

namespace fxs::runtime {

// One kernel call site of a graph's output code: debug handle `name:n`.
struct CallSite {
    int n = 0;                           // 1-based position among the graph's call sites
    std::string name;                    // "triton_poi_fused_add_0", "extern_kernels.mm", ...
    bool triton = false;                 // a generated kernel launched under its own name
    std::vector<std::string> postNodes;  // post-grad nodes it computes
    std::vector<std::string> stack;      // kernel_stack_traces entries, when logged
    std::string handle() const { return name + ":" + std::to_string(n); }
};

struct TritonKernelInfo {
    std::string autotuneState; // "only 1 config", "hit", ...
    std::int64_t compileTimeUs = -1;
};

struct CompiledGraph {
    std::string key; // FX graph cache key
    model::CompileId compileId;
    std::string kind;                 // "forward", "backward", "inference" or "" unknown
    std::vector<CallSite> sites;      // by n
    std::string postNodesFrom;        // "cppCodeToPost", "output code comments" or ""
    std::map<std::string, std::vector<std::string>> postToPre;
    graph::GraphPtr postGrad;         // inductor_post_grad_graph; may be null
    graph::GraphPtr preGrad;          // after_pre_grad_graph of the compile; may be null
    std::vector<std::string> notes;   // what was missing, in words
    const CallSite* site(int n) const;
};

struct RunProvenance {
    std::vector<CompiledGraph> graphs;
    std::map<std::string, TritonKernelInfo> tritonInfo; // by kernel name
    const CompiledGraph* find(std::string_view key) const;
};

// Pairs each FX graph cache lookup with a key to the Inductor artifacts logged for it (same
// compile id, logged after the previous FX lookup of that compile and before this one). The
// kind is "inference" when the compile logged aot_inference_graph, else forward for its first
// FX graph and backward for its second. Graphs must be parsed (readTorchTrace's default).
RunProvenance collectProvenance(const model::Run& run);

// The call sites of an output code's call() with the post-grad nodes its
// "# Topologically Sorted Source Nodes: [...]" comments name, in order (n from 1).
std::vector<CallSite> outputCodeCallSites(std::string_view code);

} // namespace fxs::runtime
