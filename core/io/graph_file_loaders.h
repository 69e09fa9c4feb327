// Extension point of io::loadPaths for graph file formats whose readers live outside
// fxscope_io, such as TorchScript archives (they need LibTorch, which fxscope_io must not
// link). A reader registers a sniffer and a loader once at start-up; loadPaths asks the
// registered loaders, in registration order, before its own sniffing. Not a plugin system:
// registration is an explicit call from main() (static initialisers vanish from static libs).
#pragma once

#include "core/model/run.h"
#include "core/util/diagnostics.h"
#include "core/util/result.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fxs::io {

// sniff: cheap and side-effect free, true when the file at path is this loader's format (it
// may read the first bytes; it must not throw).
using GraphFileSniffer = std::function<bool(const std::string& path)>;
// load: the graph of the file (kind, file and line filled), problems that did not stop it in
// diagnostics (with the path as file); an Error when nothing could be read. Exceptions it
// throws are caught by loadPaths and reported as internal errors.
using GraphFileLoadFn =
    std::function<Result<model::GraphArtifact>(const std::string& path, Diagnostics& diagnostics)>;

struct GraphFileLoader {
    std::string name; // "torchscript": for messages and to replace a registration
    GraphFileSniffer sniff;
    GraphFileLoadFn load;
};

// Registers a loader; one registered under the same name is replaced (so calling a
// register function twice is harmless). Thread-safe, but meant for start-up.
void registerGraphFileLoader(std::string name, GraphFileSniffer sniff, GraphFileLoadFn load);

// The first registered loader whose sniffer accepts path, or nullopt. Thread-safe.
std::optional<GraphFileLoader> findGraphFileLoader(const std::string& path);

// Names of the registered loaders, in registration order.
std::vector<std::string> graphFileLoaderNames();

// True when the file at path starts like a TorchScript archive (a zip whose first entries name
// the code directory or constants.pkl). Torch-free, so that a program without the TorchScript
// reader can tell which files need it.
bool looksLikeTorchScriptArchive(const std::string& path);

} // namespace fxs::io
