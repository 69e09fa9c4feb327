// The versions of the libraries fxscope was built with and runs on (LibTorch, Graphviz, SQLite,
// the CUDA driver and NVRTC when present), as plain data: the one list that Help › About and
// `fxscope-cli --version` show. Qt is not here (core has no Qt): the app adds it in front.
#pragma once

#include <string>
#include <vector>

namespace fxs::about {

struct ComponentVersion {
    std::string name;    // "LibTorch", "Graphviz", "SQLite", "CUDA driver", "NVRTC"
    std::string built;   // the headers fxscope was compiled against ("" when it needs none)
    std::string running; // what this process loaded ("" when it cannot be asked at run time)

    // "SQLite 3.40.1", or "SQLite 3.40.1 (built with 3.40.0)" when they differ.
    std::string text() const;
};

// In this order: LibTorch, Graphviz (when built with it), SQLite, then the CUDA driver and
// NVRTC when they load on this machine (never an error: absent ones are left out).
std::vector<ComponentVersion> componentVersions();

// "LibTorch 1.13.0 · Graphviz 2.43.0 · SQLite 3.40.1": the texts joined with " · ".
std::string versionsLine(const std::vector<ComponentVersion>& components);

} // namespace fxs::about
