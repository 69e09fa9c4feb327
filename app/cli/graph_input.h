// The one way fxscope-cli commands that work on a single graph (run, partition, compile,
// profile) read it: a printed graph-code file, a TorchScript `.pt`, a torch.export `.pt2`, or
// one graph of a TORCH_TRACE file/directory picked by a selector (`--graph`). Not for commands that read
// many graphs or cache events (inspect, explain): those use io::loadPaths.
#pragma once

#include "core/exec/tensor_handle.h"
#include "core/graph/graph.h"
#include "core/model/run.h"
#include "core/structure/structure.h"
#include "core/model/exported_program.h"
#include "core/util/diagnostics.h"
#include "core/util/result.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace fxs::cli {

struct LoadedGraph {
    graph::GraphPtr graph; // never null in a successful result
    // The bytes a project or region plan digests to notice that the graph changed: the file's
    // text (graph code), the file's bytes (.pt), the program's JSON (.pt2), or the selected
    // graph's payload (TORCH_TRACE).
    std::string sourceBytes;
    // Parameter and buffer values of a TorchScript module by get_attr target; null otherwise.
    std::shared_ptr<const exec::ValueStore> attributes;
    // TORCH_TRACE input: the whole run and the selected graph's index in run->graphs (commands
    // that look at the other graphs of the same compile, such as `structure`); null otherwise.
    std::shared_ptr<const model::Run> run;
    std::size_t runGraphIndex = 0;
    // A `.pt2` archive's signature, ranges and weight index (weights not read); null otherwise.
    std::shared_ptr<const model::ExportedProgram> exported;
    // Problems the importer noted but read past (graph-code parse errors, TorchScript nodes
    // that could not be converted, a payload that failed its checksum). Callers decide
    // whether these are fatal.
    Diagnostics diagnostics;
};

// selector (TORCH_TRACE input only): "N", the graph's 0-based position in `inspect --json`'s
// "graphs" list for that path; or "COMPILE_ID:KIND" (e.g. "0/0:aot_forward_graph"), the first
// such graph, "COMPILE_ID:KIND#N" its N-th (0-based). Empty: the trace's only graph.
// Errors: Io (unreadable path), Parse (nothing graph-like: no graph code, not a loadable
// TorchScript module, an unparsable payload), Invalid (selector missing, malformed, matching
// nothing, or given for a non-trace input). Never throws.
Result<LoadedGraph> loadGraphInput(const std::string& path, const std::string& selector = {});

// The loaded graph's module tree: with the other graphs of its compile for TORCH_TRACE input
// (AOT graphs get the Dynamo graph's paths), from the graph alone otherwise.
Result<structure::ModuleTree> structureOf(const LoadedGraph& loaded);
// What a run of the graph takes besides its user inputs: a TorchScript module's attributes, or
// a `.pt2` archive's parameters, buffers and constants (read from the archive now); null for
// other inputs. sampleInputs: for a `.pt2` that has them, its example inputs too (then *note
// says so). Errors: exported::loadExportWeights's (a missing or damaged weight entry).
Result<std::shared_ptr<const exec::ValueStore>> graphWeights(const LoadedGraph& loaded,
                                                             bool sampleInputs = false,
                                                             std::string* note = nullptr);

// Symbolic sizes for a run (`--size` values in, completed out): for a `.pt2`, symbols not given
// take the value export traced them with, and every size must lie in the symbol's range
// (Invalid error naming it otherwise). Other inputs: unchanged.
Status completeSizes(const LoadedGraph& loaded, std::map<std::string, std::int64_t>& sizes);

} // namespace fxs::cli
