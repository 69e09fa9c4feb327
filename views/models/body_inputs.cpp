#include "views/models/body_inputs.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <vector>

namespace fxs::views {

namespace {

bool isBodyArgument(const graph::Graph& g, const graph::Argument& a)
{
    return a.isNode() && a.node < g.size() && g.node(a.node).op == graph::OpKind::GetAttr &&
           g.submodule(g.node(a.node).target) != nullptr;
}

void flattenNodes(const graph::Argument& a, std::vector<graph::NodeId>& out)
{
    if (a.isNode()) {
        out.push_back(a.node);
    }
    for (const graph::Argument& item : a.items) {
        flattenNodes(item, out);
    }
}

// The node operands a HOP call passes after its last body argument, in order.
std::vector<graph::NodeId> operandsOf(const graph::Graph& g, const graph::Node& call)
{
    std::size_t first = call.args.size();
    for (std::size_t i = call.args.size(); i-- > 0;) {
        if (isBodyArgument(g, call.args[i])) {
            first = i + 1;
            break;
        }
    }
    std::vector<graph::NodeId> out;
    for (std::size_t i = first; i < call.args.size(); ++i) {
        flattenNodes(call.args[i], out);
    }
    return out;
}

// The dotted components the paths end with in common ("ln.weight"); empty when none.
std::string commonPathSuffix(const std::vector<std::string>& paths)
{
    // Whether the last n characters of s start a component.
    const auto starts = [](std::string_view s, std::size_t n) {
        return n == s.size() || s[s.size() - n - 1] == '.';
    };
    std::string suffix = paths.front();
    for (const std::string& p : paths) {
        std::size_t n = 0; // characters in common from the end
        while (n < p.size() && n < suffix.size() &&
               p[p.size() - 1 - n] == suffix[suffix.size() - 1 - n]) {
            ++n;
        }
        while (n > 0 && !(starts(p, n) && starts(suffix, n) && p[p.size() - n] != '.')) {
            --n;
        }
        suffix = suffix.substr(suffix.size() - n);
    }
    return suffix;
}

// What one position of the operands reads as across the call sites, or none.
std::optional<std::string> agreedName(const graph::Graph& caller,
                                      const std::vector<graph::NodeId>& passed,
                                      const structure::ModuleTree* modules)
{
    const std::string& first = caller.node(passed.front()).name;
    if (std::all_of(passed.begin(), passed.end(),
                    [&](graph::NodeId id) { return caller.node(id).name == first; })) {
        return first;
    }
    std::vector<std::string> paths;
    for (graph::NodeId id : passed) {
        const auto* in = modules != nullptr ? modules->inputPath(id) : nullptr;
        if (in == nullptr) {
            return std::nullopt; // an activation, or a parameter nobody named
        }
        paths.push_back(in->path);
    }
    std::string common = commonPathSuffix(paths);
    return common.empty() ? std::nullopt : std::optional<std::string>(std::move(common));
}

} // namespace

std::unordered_map<graph::NodeId, std::string>
bodyInputNames(const graph::Graph& caller, const graph::Subgraph& body,
               const structure::ModuleTree* modules)
{
    if (!body.graph || body.callSites.empty()) {
        return {};
    }
    const auto& inputs = body.graph->placeholders();
    std::vector<std::vector<graph::NodeId>> passed(inputs.size()); // per input, per call site
    for (graph::NodeId site : body.callSites) {
        if (site >= caller.size()) {
            return {};
        }
        const auto operands = operandsOf(caller, caller.node(site));
        if (operands.size() != inputs.size()) {
            return {};
        }
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            passed[i].push_back(operands[i]);
        }
    }
    std::unordered_map<graph::NodeId, std::string> out;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        if (auto name = agreedName(caller, passed[i], modules)) {
            out.emplace(inputs[i], std::move(*name));
        }
    }
    return out;
}

} // namespace fxs::views
