#include "core/compile/region_graph.h"

#include "core/graph/graph_builder.h"
#include "core/graph/node_remap.h"

#include <unordered_map>

namespace fxs::compile {

Result<graph::GraphPtr> extractRegionGraph(const graph::Graph& g,
                                           const std::vector<graph::NodeId>& order,
                                           const std::vector<graph::NodeId>& inputs,
                                           const std::vector<graph::NodeId>& outputs)
{
    graph::GraphBuilder b("RegionModule");
    std::unordered_map<graph::NodeId, graph::NodeId> ids;
    for (graph::NodeId in : inputs) {
        const graph::Node& n = g.node(in);
        ids[in] = b.placeholder(n.name, n.tensorMeta() ? std::optional(*n.tensorMeta())
                                                       : std::nullopt);
    }
    for (graph::NodeId id : order) {
        const graph::Node& old = g.node(id);
        bool known = true;
        auto check = [&](const graph::Argument& a) {
            a.forEachNode([&](graph::NodeId r) { known = known && ids.count(r) != 0; });
        };
        for (const auto& a : old.args) {
            check(a);
        }
        for (const auto& kv : old.kwargs) {
            check(kv.second);
        }
        if (!known) {
            return makeError(ErrorCode::Invalid, "region node reads a value from outside "
                                                 "the region that is not an input",
                             old.name);
        }
        graph::Node n =
            graph::remappedNode(old, [&](graph::NodeId r) { return ids.at(r); });
        if (graph::opBaseName(n.target) == "getitem" && n.args.size() == 2 &&
            n.args[0].isNode() && n.args[1].kind == graph::ArgKind::Int) {
            ids[id] = b.getitem(n.name, n.args[0].node, int(n.args[1].i),
                                n.tensorMeta() ? std::optional(*n.tensorMeta()) : std::nullopt);
            continue;
        }
        ids[id] = b.add(std::move(n));
    }
    std::vector<graph::Argument> ret;
    for (graph::NodeId out : outputs) {
        ret.push_back(graph::Argument::ref(ids.at(out)));
    }
    b.output(std::move(ret));
    return b.build();
}

} // namespace fxs::compile
