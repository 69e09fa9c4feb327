// `.fxscope` project files: which graph (path and SHA-256 of its text), the regions by node
// name with annotation and options, and the app's view state as an opaque JSON object. Loading
// re-matches regions to the graph by node name and reports what no longer matches; nothing is
// dropped silently. Not the region plan for PyTorch (region_plan.h).
#pragma once

#include "core/partition/region.h"
#include "core/util/result.h"

#include <string>
#include <vector>

namespace fxs::partition {

inline constexpr int kProjectSchema = 1;

struct ProjectRegion {
    std::string id;
    std::string name;
    std::optional<std::string> annotation; // JSON object text
    std::string options;                   // JSON object text or empty
    std::vector<std::string> nodes;        // node names
};

struct Project {
    int schema = kProjectSchema;
    std::string sourcePath;
    std::string sourceSha256; // hex of the source file's bytes
    std::vector<ProjectRegion> regions;
    std::string viewState = "{}"; // JSON object text the app owns; kept verbatim otherwise
};

// A project of `regions` over `graph`, whose text was read from sourcePath.
Project makeProject(const graph::Graph& graph, const std::vector<Region>& regions,
                    std::string sourcePath, std::string_view sourceText,
                    std::string viewState = "{}");

std::string serializeProject(const Project& project); // pretty JSON, keys documented in README
// Errors: Parse for bad JSON or a missing/mistyped key, Unsupported for a newer schema.
Result<Project> parseProject(std::string_view json);
Status saveProject(const std::string& path, const Project& project);
Result<Project> loadProject(const std::string& path);

struct Unmatched {
    std::string region; // region id
    std::string node;   // node name that the graph no longer has
};

struct InvalidRegion {
    std::string region; // region id
    std::string reason; // why it is no longer legal (EditResult::refusal)
};

struct Rematch {
    std::vector<Region> regions;          // regions with at least one node left, stats computed
    std::vector<Unmatched> missingNodes;  // names not found in the graph
    std::vector<std::string> emptyRegions;   // ids of regions none of whose nodes remain
    std::vector<InvalidRegion> invalidRegions; // regions that became illegal, left out
    bool sourceChanged = false;           // the text's digest differs from the project's
    bool clean() const
    {
        return missingNodes.empty() && emptyRegions.empty() && invalidRegions.empty();
    }
};

// Matches the project's regions to `graph` (built from `sourceText`) by node name. A region
// that is no longer legal (cycle, placeholder, ...) is reported in invalidRegions and left out.
Rematch rematchProject(const Project& project, const graph::Graph& graph,
                       std::string_view sourceText);

} // namespace fxs::partition
