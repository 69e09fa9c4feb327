// The import facade: opens any mix of paths (graph-code files, TORCH_TRACE files and
// directories, torch.export .pt2 archives, and formats registered in graph_file_loaders.h such
// as TorchScript .pt) and returns runs, standalone graphs and every problem found. What the
// CLI's inspect and the app's File > Open call.
#pragma once

#include "core/model/run.h"
#include "core/util/cancel.h"
#include "core/util/diagnostics.h"

#include <string>
#include <vector>

namespace fxs::io {

struct LoadResult {
    std::vector<model::Run> runs;              // TORCH_TRACE inputs
    std::vector<model::GraphArtifact> graphs;  // standalone graph files (kind "graph")
    Diagnostics diagnostics;
    bool readSomething() const { return !runs.empty() || !graphs.empty(); }
};

struct LoadOptions {
    // TORCH_TRACE graphs keep their code and parse when asked (DeferredGraph::get()):
    // opening a large log costs the envelopes, not every graph's IR. Standalone graph files are
    // always parsed (the file is the graph).
    bool deferGraphParsing = false;
};

// Each path: a directory holds TORCH_TRACE runs as io::planDirectory plans them (one run of
// rank logs, or one run per process log); a file goes to the first registered loader
// whose sniffer accepts it (graph_file_loaders.h), else is sniffed as a TORCH_TRACE log or
// graph code. Unreadable or unrecognised paths become diagnostics; never throws.
LoadResult loadPaths(const std::vector<std::string>& paths,
                     const CancelToken& cancel = CancelToken::none(),
                     const ProgressSink& progress = {});
LoadResult loadPaths(const std::vector<std::string>& paths, const LoadOptions& options,
                     const CancelToken& cancel = CancelToken::none(),
                     const ProgressSink& progress = {});

} // namespace fxs::io
