// TorchScript `.pt` files as a graph format of io::loadPaths (inspect, File > Open): the
// loader registered with io::registerGraphFileLoader. Torch-free header, so the app and the
// CLI can call registerLoader() from main(). Not for running a module with its own weights:
// importTorchScript (torchscript_importer.h) returns those.
#pragma once

#include "core/model/run.h"
#include "core/util/diagnostics.h"
#include "core/util/result.h"

#include <string>

namespace fxs::torchscript {

// Registers the "torchscript" loader (sniffer: looksLikeTorchScript). Call once from main()
// before loading; calling again is harmless.
void registerLoader();

// The module's forward graph as a standalone artifact (kind "graph", file = path, line 0);
// nodes that could not be converted (scripted control flow) are errors in diagnostics, with
// the path. Errors: Io (unreadable), Parse (not a loadable TorchScript module: truncated or
// corrupt archive, a torch.save file, ...). Never throws.
Result<model::GraphArtifact> loadTorchScriptGraph(const std::string& path,
                                                  Diagnostics& diagnostics);

} // namespace fxs::torchscript
