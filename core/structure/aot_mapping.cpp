#include "core/structure/aot_mapping.h"

#include <algorithm>
#include <string>

namespace fxs::structure {
namespace {

using graph::Graph;
using graph::Node;
using graph::NodeId;

std::size_t countOf(std::string_view text, std::string_view needle)
{
    std::size_t n = 0;
    for (auto at = text.find(needle); at != std::string_view::npos;
         at = text.find(needle, at + needle.size())) {
        ++n;
    }
    return n;
}

// Same dtype and sizes, when both sides print them (a check on positional matches).
bool metaAgrees(const Node& a, const Node& b)
{
    if (!a.meta.isTensor() || !b.meta.isTensor()) {
        return a.meta.kind == b.meta.kind;
    }
    return a.meta.tensor.dtype == b.meta.tensor.dtype && a.meta.tensor.sizes == b.meta.tensor.sizes;
}

bool isTangent(std::string_view name)
{
    return name.starts_with("tangents_");
}

MatchStrength weaker(MatchStrength a, MatchStrength b)
{
    return static_cast<int>(a) > static_cast<int>(b) ? a : b;
}

void placeFrom(const ModuleTree& tree, const InputPath& from, NodeId to, MatchStrength strength,
               ModuleTreeBuilder& out)
{
    out.addInput(to, from.path, from.module == kNoModule ? std::string() : tree.module(from.module).path,
                 strength);
}

} // namespace

std::optional<MatchStrength> mapAotInputs(const Graph& aot, const Graph& dynamo,
                                          const ModuleTree& dynamoTree,
                                          std::string_view fwMetadata, ModuleTreeBuilder& out)
{
    const auto& inputs = aot.placeholders();
    const auto& dynamoInputs = dynamo.placeholders();
    const bool tagged = std::any_of(inputs.begin(), inputs.end(), [&](NodeId id) {
        return aot.node(id).aot && aot.node(id).aot->kind == "PlainAOTInput";
    });
    // Untagged: position, when the input counts agree (the tangents of a joint graph aside).
    std::vector<NodeId> primals;
    for (NodeId id : inputs) {
        if (!isTangent(aot.node(id).name)) {
            primals.push_back(id);
        }
    }
    const std::size_t declared = countOf(fwMetadata, "InputAliasInfo(");
    const bool positional = !tagged && (primals.size() == dynamoInputs.size() ||
                                        declared == dynamoInputs.size());
    if (!tagged && !positional) {
        out.note("AOT inputs carry no PlainAOTInput tags and their count (" +
                 std::to_string(primals.size()) + ") differs from the Dynamo graph's (" +
                 std::to_string(dynamoInputs.size()) + "): inputs not mapped");
        return std::nullopt;
    }
    std::optional<MatchStrength> weakest;
    std::size_t disagreeing = 0;
    for (std::size_t k = 0; k < primals.size(); ++k) {
        const Node& a = aot.node(primals[k]);
        std::size_t idx = k;
        if (tagged) {
            if (!a.aot || a.aot->kind != "PlainAOTInput" || a.aot->idx < 0) {
                continue;
            }
            idx = static_cast<std::size_t>(a.aot->idx);
        }
        const InputPath* from =
            idx < dynamoInputs.size() ? dynamoTree.inputPath(dynamoInputs[idx]) : nullptr;
        if (from == nullptr) {
            continue;
        }
        if (!metaAgrees(a, dynamo.node(dynamoInputs[idx]))) {
            ++disagreeing;
            continue;
        }
        const MatchStrength s = tagged ? MatchStrength::AotTag : MatchStrength::Position;
        placeFrom(dynamoTree, *from, primals[k], s, out);
        weakest = weakest ? weaker(*weakest, s) : s;
    }
    if (disagreeing > 0) {
        out.note(std::to_string(disagreeing) +
                 " AOT input(s) differ in dtype or shape from their Dynamo input: not mapped");
    }
    if (!tagged && weakest) {
        out.note("AOT inputs matched to Dynamo inputs by position (no PlainAOTInput tags)");
    }
    return weakest;
}

std::optional<MatchStrength> mapBackwardInputs(const Graph& backward, const Graph& forward,
                                               const ModuleTree& forwardTree,
                                               ModuleTreeBuilder& out)
{
    std::optional<MatchStrength> weakest;
    for (NodeId id : backward.placeholders()) {
        const Node& p = backward.node(id);
        const auto fw = forward.find(p.name);
        if (isTangent(p.name) || !fw) {
            continue;
        }
        if (const InputPath* in = forwardTree.inputPath(*fw)) {
            placeFrom(forwardTree, *in, id, in->strength, out);
            weakest = weakest ? weaker(*weakest, in->strength) : in->strength;
            continue;
        }
        const std::string_view path = forwardTree.pathOf(*fw);
        if (!path.empty()) {
            out.assign(id, out.moduleFor(path));
            weakest = weakest ? weaker(*weakest, MatchStrength::SavedTensor)
                              : MatchStrength::SavedTensor;
        }
    }
    if (weakest) {
        weakest = weaker(*weakest, forwardTree.strength);
    }
    return weakest;
}

bool isBackwardOf(const Graph& graph, const Graph& forward)
{
    bool tangents = false;
    bool saved = false;
    for (NodeId id : graph.placeholders()) {
        const std::string& name = graph.node(id).name;
        tangents = tangents || isTangent(name);
        if (const auto fw = forward.find(name); fw && !forward.node(*fw).isPlaceholder()) {
            saved = true;
        }
    }
    return tangents && saved;
}

} // namespace fxs::structure
