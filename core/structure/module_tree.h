// The module tree of one graph: nested modules ("model.layers.3.self_attn") with the nodes that
// belong to each, the parameter path of each input that names one, identical modules and
// repeated blocks. Plain immutable data made by structure::recoverStructure (structure.h);
// not the recovery itself, and it knows nothing of layout or drawing.
#pragma once

#include "core/graph/node.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::structure {

// Where the module structure came from (the CLI's "source"; names are a contract).
enum class Source : std::uint8_t {
    None,           // nothing: every node unassigned
    Names,          // the graph's own names (Dynamo placeholders, call_module/get_attr targets)
    AotMapping,     // an AOT graph's inputs mapped to the Dynamo graph of the same compile
    ExportMetadata, // nn_module_stack metadata carried by the nodes (.pt2)
    Repetition,     // no names: repeated blocks found by structural hashing ("block N")
};
std::string_view sourceName(Source s); // "none", "names", "aot_mapping", ...

// How an input's parameter path was found, strongest first. Position means "the N-th input
// of the AOT graph is the N-th input of the Dynamo graph" without a tag saying so.
enum class MatchStrength : std::uint8_t { Name, AotTag, SavedTensor, Position };
std::string_view matchStrengthName(MatchStrength m); // "name", "aot_tag", ...

using ModuleId = std::uint32_t;
inline constexpr ModuleId kNoModule = 0xffffffffu;

// An input (placeholder or get_attr) that names a parameter, buffer or module attribute.
struct InputPath {
    graph::NodeId node = graph::kNoNode;
    std::string path;   // "model.layers.0.self_attn.q_proj.weight"
    ModuleId module = kNoModule; // its owner ("model.layers.0.self_attn.q_proj")
    MatchStrength strength = MatchStrength::Name;
};

struct Module {
    std::string path;             // "model.layers.3.self_attn"; repetition: "block 3"
    ModuleId parent = kNoModule;
    std::vector<ModuleId> children; // in order of their first non-input node
    std::vector<graph::NodeId> nodes; // nodes directly in this module (not in a child), graph order
    std::size_t totalNodes = 0;   // nodes in this module and all its descendants
    // Structural hash of all nodes of the subtree (structural_hash.h); 0 when it has none.
    std::uint64_t hash = 0;
    // The module this one is identical to: the same-named child of the module its parent is
    // identical to, else the first earlier sibling with the same hash (the same code; node
    // counts may differ by layout copies, see structural_hash.h).
    ModuleId identicalTo = kNoModule;
    int depth = 0; // 0 for roots

    // Last path component: "self_attn"; the whole path for a root.
    std::string_view name() const;
};

// A group of structurally identical modules (at least two), e.g. the 24 decoder layers. Named
// graphs: siblings with equal hashes; bare graphs: the "block N" modules of Source::Repetition.
struct RepeatedBlock {
    std::size_t nodesEach = 0; // the first instance's
    std::uint64_t hash = 0;
    std::vector<ModuleId> instances; // in graph order
};

struct ModuleTree {
    Source source = Source::None;
    // The weakest MatchStrength of the inputs that placed nodes (Position: the AOT mapping
    // fell back to input order somewhere). Name for Names/Repetition/ExportMetadata.
    MatchStrength strength = MatchStrength::Name;
    std::vector<Module> modules; // preorder: a parent before its children
    std::vector<ModuleId> roots; // in order of their first non-input node
    std::vector<ModuleId> moduleOf; // per NodeId: the deepest module holding it, or kNoModule
    std::vector<InputPath> inputs;  // inputs whose parameter path is known, graph order
    std::vector<RepeatedBlock> repeatedBlocks; // largest (nodesEach × instances) first
    std::size_t unassigned = 0;     // nodes in no module (graph inputs, loss, output, ...)
    std::vector<std::string> notes; // what was guessed or could not be used, for the user

    const Module& module(ModuleId id) const { return modules.at(id); }
    std::optional<ModuleId> find(std::string_view path) const;
    // The module path of a node ("" when unassigned).
    std::string_view pathOf(graph::NodeId node) const;
    // Every node of the module and its descendants, in graph order.
    std::vector<graph::NodeId> nodesOf(ModuleId id) const;
    // True when m is a or lies below a.
    bool isWithin(ModuleId m, ModuleId a) const;
    // The deepest module holding every one of nodes that is in a module (nodes in none, such as
    // inputs, are left out); nullopt when none is in a module or they share none.
    std::optional<ModuleId> commonModule(const std::vector<graph::NodeId>& nodes) const;
    // The parameter path of an input node, when known.
    const InputPath* inputPath(graph::NodeId node) const;
};

} // namespace fxs::structure
