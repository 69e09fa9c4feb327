// Matching backward placeholders to forward values (see forward_feed.h).
#include "core/exec/forward_feed.h"

#include <set>

namespace fxs::exec::detail {
namespace {

std::string trimmed(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '#')) {
        s.remove_prefix(1);
    }
    while (!s.empty() && s.back() == ' ') {
        s.remove_suffix(1);
    }
    return std::string(s);
}

// The forward output (index into returnedNodes) whose AOT comment reads `text`.
std::optional<std::size_t> fwOutputTagged(const graph::Graph& fw, const std::string& text)
{
    if (fw.outputNode() == graph::kNoNode) {
        return std::nullopt;
    }
    const auto& tags = fw.node(fw.outputNode()).outputAot;
    for (std::size_t i = 0; i < tags.size(); ++i) {
        if (tags[i] && trimmed(tags[i]->text) == text) {
            return i;
        }
    }
    return std::nullopt;
}

// `TangentAOTInput(output=PlainAOTOutput(idx=0))` -> "PlainAOTOutput(idx=0)".
std::string tangentTarget(const std::string& text)
{
    const auto at = text.find("output=");
    if (at == std::string::npos || text.back() != ')') {
        return {};
    }
    return text.substr(at + 7, text.size() - at - 8);
}

bool matchAot(const graph::Graph& fw, const graph::Node& p, FeedSource& src)
{
    if (!p.aot) {
        return false;
    }
    const std::string text = trimmed(p.aot->text);
    const auto returned = fw.returnedNodes();
    if (p.aot->kind == "PlainAOTInput") {
        for (auto id : fw.placeholders()) {
            if (fw.node(id).aot && trimmed(fw.node(id).aot->text) == text) {
                src.fwNode = id;
                return true;
            }
        }
        if (p.aot->idx >= 0 && static_cast<std::size_t>(p.aot->idx) < fw.placeholders().size()) {
            src.fwNode = fw.placeholders()[p.aot->idx];
            return true;
        }
    } else if (p.aot->kind == "SavedForBackwardsAOTOutput") {
        if (auto i = fwOutputTagged(fw, text); i && *i < returned.size()) {
            src.fwNode = returned[*i];
            return true;
        }
    } else if (p.aot->kind == "TangentAOTInput") {
        src.tangent = true;
        if (!p.meta.isTensor()) {
            auto i = fwOutputTagged(fw, tangentTarget(text));
            if (i && *i < returned.size()) {
                src.meta = fw.node(returned[*i]).meta;
            }
        }
        return true;
    }
    return false;
}

// Forward outputs that are not handed to the backward by name: the ones tangents belong to.
std::vector<graph::NodeId> tangentCandidates(const graph::Graph& fw, const graph::Graph& bw)
{
    std::set<std::string> byName;
    for (auto id : bw.placeholders()) {
        byName.insert(bw.node(id).name);
    }
    std::vector<graph::NodeId> out;
    for (auto id : fw.returnedNodes()) {
        const auto* m = fw.node(id).tensorMeta();
        if (m && graph::isFloatingPoint(m->dtype) && !byName.count(fw.node(id).name)) {
            out.push_back(id);
        }
    }
    return out;
}

} // namespace

Result<FeedPlan> matchBackwardInputs(const graph::Graph& fw, const graph::Graph& bw)
{
    FeedPlan plan;
    const auto candidates = tangentCandidates(fw, bw);
    for (auto id : bw.placeholders()) {
        const graph::Node& p = bw.node(id);
        FeedSource src;
        src.bwInput = id;
        if (matchAot(fw, p, src)) {
            src.rule = src.tangent ? "tangent" : "aot-comment";
        } else if (auto f = fw.find(p.name)) {
            src.fwNode = *f;
            src.rule = "name";
        } else if (p.name.rfind("tangents_", 0) == 0) {
            src.tangent = true;
            src.rule = "tangent";
        } else {
            Error e = makeError(ErrorCode::Invalid,
                                "backward input '" + p.name +
                                    "' matches no forward input, value or AOT comment",
                                p.name);
            e.expected = "a forward node named '" + p.name + "' or an AOT comment";
            return e;
        }
        if (src.tangent && !src.meta.isTensor()) {
            src.meta = p.meta;
            const auto k = std::atoi(p.name.c_str() + std::min<std::size_t>(p.name.size(), 9));
            if (!src.meta.isTensor() && k >= 1 &&
                static_cast<std::size_t>(k) <= candidates.size()) {
                src.meta = fw.node(candidates[k - 1]).meta;
            }
        }
        if (!src.tangent) {
            plan.fwKeep.push_back(src.fwNode);
        }
        plan.sources.push_back(std::move(src));
    }
    return plan;
}

} // namespace fxs::exec::detail
