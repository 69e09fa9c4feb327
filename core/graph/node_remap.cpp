#include "core/graph/node_remap.h"

namespace fxs::graph {
namespace {

Argument remapped(const Argument& a, const std::function<NodeId(NodeId)>& newId)
{
    Argument out = a;
    if (a.kind == ArgKind::Node) {
        out.node = newId(a.node);
    }
    for (auto& item : out.items) {
        item = remapped(item, newId);
    }
    return out;
}

} // namespace

Node remappedNode(const Node& node, const std::function<NodeId(NodeId)>& newId)
{
    Node n = node;
    for (auto& a : n.args) {
        a = remapped(a, newId);
    }
    for (auto& kv : n.kwargs) {
        kv.second = remapped(kv.second, newId);
    }
    n.inputs.clear();
    n.users.clear();
    n.multiOutput = false;
    n.getitemOf = kNoNode;
    n.getitemIndex = -1;
    return n;
}

} // namespace fxs::graph
