// The region compiler: for one region of a graph and the tensors it will run on, lowers and
// prints C++ or CUDA (core/codegen), looks the artifact up in the cache (core/cache), else builds
// it (host compiler: a shared object; NVRTC: a cubin), loads it, verifies it against the eager
// engine the first time (a mismatch marks the entry bad for good) and times both (CPU: wall
// clock; CUDA: events on LibTorch's stream). Whatever fails, the region falls back to LibTorch
// and the caller's run goes on. A build-only mode generates and caches without running (no GPU
// needed for CUDA). Synchronous; never throws.
#pragma once

#include "core/compile/compile_types.h"
#include "core/exec/tensor_handle.h"
#include "core/graph/graph.h"

#include <memory>
#include <string>

namespace fxs::compile {

class RegionCompiler {
public:
    explicit RegionCompiler(CompileOptions options);
    ~RegionCompiler();

    // values: tensors by node name holding every region input (e.g. RunReport::kept). In
    // build-only mode they are not read (the graph's meta describes the inputs).
    RegionOutcome compileAndRun(const graph::Graph& graph, const RegionSpec& region,
                                const exec::ValueStore& values);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// The LibTorch version the engine runs ("1.13.0"), a cache key component.
std::string libtorchVersion();

// True when this LibTorch has CUDA and the driver sees a GPU: CUDA regions can run here.
bool cudaRunnable();

} // namespace fxs::compile
