#include "core/model/lookup_graphs.h"

#include <algorithm>
#include <utility>

namespace fxs::model {
namespace {

int fxGraphTarget(const Run& run, const CompileId& cid, std::size_t ordinal)
{
    for (std::string_view kind : {"inductor_post_grad_graph", "before_post_grad_graph"}) {
        const auto list = graphsOfKind(run, cid, kind);
        if (ordinal < list.size()) {
            return list[ordinal];
        }
    }
    if (ordinal > 1) {
        return -1;
    }
    const std::vector<std::string_view> fallback =
        ordinal == 0 ? std::vector<std::string_view>{"aot_forward_graph", "aot_inference_graph"}
                     : std::vector<std::string_view>{"aot_backward_graph"};
    for (auto kind : fallback) {
        const auto list = graphsOfKind(run, cid, kind);
        if (!list.empty()) {
            return list.front();
        }
    }
    return -1;
}

int aotTarget(const Run& run, const CompileId& cid)
{
    for (std::string_view kind : {"aot_joint_graph", "aot_forward_graph", "aot_inference_graph",
                                  "dynamo_output_graph"}) {
        const auto list = graphsOfKind(run, cid, kind);
        if (!list.empty()) {
            return list.front();
        }
    }
    return -1;
}

} // namespace

bool isPreGradKind(std::string_view kind)
{
    return kind == "dynamo_output_graph" || kind == "before_pre_grad_graph" ||
           kind == "after_pre_grad_graph" || kind == "inductor_pre_grad_graph";
}

std::vector<int> graphsOfKind(const Run& run, const CompileId& cid, std::string_view kind)
{
    std::vector<int> out;
    for (std::size_t i = 0; i < run.graphs.size(); ++i) {
        if (run.graphs[i].compileId == cid && run.graphs[i].kind == kind) {
            out.push_back(static_cast<int>(i));
        }
    }
    return out;
}

std::vector<int> graphsKeyedByLookups(const Run& run)
{
    std::vector<int> out;
    out.reserve(run.lookups.size());
    // Running count of fx_graph lookups per compile id: forward first, then backward.
    std::vector<std::pair<CompileId, std::size_t>> fxSeen;
    for (const auto& lookup : run.lookups) {
        if (lookup.cache == CacheKind::AotAutograd) {
            out.push_back(aotTarget(run, lookup.compileId));
            continue;
        }
        std::size_t ordinal = 0;
        auto it = std::find_if(fxSeen.begin(), fxSeen.end(),
                               [&](const auto& p) { return p.first == lookup.compileId; });
        if (it == fxSeen.end()) {
            fxSeen.emplace_back(lookup.compileId, 1);
        } else {
            ordinal = it->second++;
        }
        out.push_back(fxGraphTarget(run, lookup.compileId, ordinal));
    }
    return out;
}

} // namespace fxs::model
