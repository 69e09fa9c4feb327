#include "views/models/graph_kinds.h"

#include "core/model/lookup_graphs.h"

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

std::vector<int> runRanks(const model::Run& run)
{
    std::vector<int> ranks;
    for (const auto& g : run.graphs) {
        if (g.rank >= 0 && std::find(ranks.begin(), ranks.end(), g.rank) == ranks.end()) {
            ranks.push_back(g.rank);
        }
    }
    std::sort(ranks.begin(), ranks.end());
    return ranks;
}

QString graphDisplayName(const model::Run& run, int index)
{
    const auto& artifact = run.graphs.at(static_cast<std::size_t>(index));
    // Graphs of one compile id on another rank are that rank's, not a second graph.
    const auto onRank = [&](std::vector<int> ids) {
        std::erase_if(ids, [&](int i) { return run.graphs[std::size_t(i)].rank != artifact.rank; });
        return ids;
    };
    const QString prefix = artifact.rank >= 0 && runRanks(run).size() > 1
                               ? QObject::tr("rank %1 · ").arg(artifact.rank)
                               : QString();
    const QString label = prefix + graphKindLabel(artifact.kind);
    const auto same = onRank(model::graphsOfKind(run, artifact.compileId, artifact.kind));
    if (same.size() < 2) {
        return label;
    }
    const auto pos = std::find(same.begin(), same.end(), index) - same.begin();
    const bool training =
        !onRank(model::graphsOfKind(run, artifact.compileId, "aot_backward_graph")).empty();
    if (training && same.size() == 2) {
        return label + (pos == 0 ? QObject::tr(" (forward)") : QObject::tr(" (backward)"));
    }
    return label + QStringLiteral(" #%1").arg(pos + 1);
}

} // namespace fxs::views
