#include "core/torchscript/torchscript_loader.h"

#include "core/io/graph_file_loaders.h"
#include "core/torchscript/torchscript_importer.h"

namespace fxs::torchscript {

Result<model::GraphArtifact> loadTorchScriptGraph(const std::string& path,
                                                  Diagnostics& diagnostics)
{
    auto module = importTorchScript(path);
    if (!module.ok()) {
        return module.error();
    }
    diagnostics.append(module->diagnostics);
    model::GraphArtifact g;
    g.kind = "graph";
    g.file = path;
    g.line = 0;
    g.statements = static_cast<int>(module->graph->size());
    g.graph = std::move(module->graph);
    return g;
}

void registerLoader()
{
    io::registerGraphFileLoader("torchscript", &looksLikeTorchScript, &loadTorchScriptGraph);
}

} // namespace fxs::torchscript
