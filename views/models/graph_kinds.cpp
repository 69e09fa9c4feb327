#include "views/models/graph_kinds.h"

#include <QObject>

#include <algorithm>
#include <array>

namespace fxs::views {
namespace {

struct KindInfo {
    std::string_view kind;
    int order;
    const char* label;
};

constexpr std::array kKinds{
    KindInfo{"dynamo_output_graph", 0, "Dynamo"},
    KindInfo{"before_pre_grad_graph", 1, "Pre-grad (before)"},
    KindInfo{"after_pre_grad_graph", 2, "Pre-grad (after)"},
    KindInfo{"inductor_pre_grad_graph", 2, "Inductor pre-grad"},
    KindInfo{"aot_joint_graph", 3, "AOT joint"},
    KindInfo{"aot_forward_graph", 4, "AOT forward"},
    KindInfo{"aot_inference_graph", 4, "AOT inference"},
    KindInfo{"aot_backward_graph", 5, "AOT backward"},
    KindInfo{"before_post_grad_graph", 6, "Post-grad (before)"},
    KindInfo{"inductor_post_grad_graph", 7, "Inductor post-grad"},
    KindInfo{"graph", 8, "Graph"},
};

const KindInfo* findKind(std::string_view kind)
{
    for (const auto& k : kKinds) {
        if (k.kind == kind) {
            return &k;
        }
    }
    return nullptr;
}

// Indices into run.graphs of the graphs of `kind` with compile id `cid`, in log order.
std::vector<int> graphsOf(const model::Run& run, const model::CompileId& cid,
                          std::string_view kind)
{
    std::vector<int> out;
    for (std::size_t i = 0; i < run.graphs.size(); ++i) {
        if (run.graphs[i].compileId == cid && run.graphs[i].kind == kind) {
            out.push_back(static_cast<int>(i));
        }
    }
    return out;
}

int fxGraphTarget(const model::Run& run, const model::CompileId& cid, std::size_t ordinal)
{
    for (std::string_view kind : {"inductor_post_grad_graph", "before_post_grad_graph"}) {
        const auto list = graphsOf(run, cid, kind);
        if (ordinal < list.size()) {
            return list[ordinal];
        }
    }
    const std::vector<std::string_view> fallback =
        ordinal == 0 ? std::vector<std::string_view>{"aot_forward_graph", "aot_inference_graph"}
                     : std::vector<std::string_view>{"aot_backward_graph"};
    if (ordinal > 1) {
        return -1;
    }
    for (auto kind : fallback) {
        const auto list = graphsOf(run, cid, kind);
        if (!list.empty()) {
            return list.front();
        }
    }
    return -1;
}

int aotTarget(const model::Run& run, const model::CompileId& cid)
{
    for (std::string_view kind : {"aot_joint_graph", "aot_forward_graph", "aot_inference_graph",
                                  "dynamo_output_graph"}) {
        const auto list = graphsOf(run, cid, kind);
        if (!list.empty()) {
            return list.front();
        }
    }
    return -1;
}

} // namespace

int graphKindOrder(std::string_view kind)
{
    const KindInfo* k = findKind(kind);
    return k ? k->order : 9;
}

QString graphKindLabel(std::string_view kind)
{
    const KindInfo* k = findKind(kind);
    return k ? QObject::tr(k->label) : QString::fromUtf8(kind.data(), qsizetype(kind.size()));
}

std::vector<int> graphsKeyedByLookups(const model::Run& run)
{
    std::vector<int> out;
    out.reserve(run.lookups.size());
    // Running count of fx_graph lookups per compile id: forward first, then backward.
    std::vector<std::pair<model::CompileId, std::size_t>> fxSeen;
    for (const auto& lookup : run.lookups) {
        if (lookup.cache == model::CacheKind::AotAutograd) {
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

QString graphDisplayName(const model::Run& run, int index)
{
    const auto& artifact = run.graphs.at(static_cast<std::size_t>(index));
    QString label = graphKindLabel(artifact.kind);
    const auto same = graphsOf(run, artifact.compileId, artifact.kind);
    if (same.size() < 2) {
        return label;
    }
    const auto pos = std::find(same.begin(), same.end(), index) - same.begin();
    const bool training = !graphsOf(run, artifact.compileId, "aot_backward_graph").empty();
    if (training && same.size() == 2) {
        return label + (pos == 0 ? QObject::tr(" (forward)") : QObject::tr(" (backward)"));
    }
    return label + QStringLiteral(" #%1").arg(pos + 1);
}

} // namespace fxs::views
