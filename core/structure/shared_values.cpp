#include "core/structure/shared_values.h"

#include <algorithm>

namespace fxs::structure {
namespace {

using graph::Node;
using graph::NodeId;
using graph::OpKind;

bool isNumbered(std::string_view path)
{
    const auto dot = path.rfind('.');
    const std::string_view last = dot == std::string_view::npos ? path : path.substr(dot + 1);
    return !last.empty() &&
           std::all_of(last.begin(), last.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool isInput(const Node& n)
{
    return n.op == OpKind::Placeholder || n.op == OpKind::GetAttr;
}

class Hoister {
public:
    Hoister(const graph::Graph& g, ModuleTreeBuilder& b)
        : m_g(g), m_b(b), m_target(g.size(), kNoTarget), m_from(g.size(), kNoModule)
    {
        m_holdsNodes.assign(b.moduleCount(), 0);
        for (NodeId id = 0; id < g.size(); ++id) {
            if (b.moduleOf(id) != kNoModule) {
                m_holdsNodes[b.moduleOf(id)] = 1;
            }
        }
    }

    std::size_t run()
    {
        // Users come after their producers: deciding in reverse graph order sees every user's
        // fate before the node's.
        for (NodeId id = static_cast<NodeId>(m_g.size()); id-- > 0;) {
            const Node& n = m_g.node(id);
            if (isInput(n) || n.op == OpKind::Output || m_b.moduleOf(id) == kNoModule) {
                continue;
            }
            if (!feedsHoisted(id)) {
                shared(id);
            }
        }
        std::size_t moved = 0;
        for (NodeId id = 0; id < m_g.size(); ++id) {
            if (m_target[id] != kNoTarget) {
                m_b.assign(id, m_target[id]);
                ++moved;
            }
        }
        return moved;
    }

private:
    // kNoModule is a valid target (the top level), so "not moved" needs its own value.
    static constexpr ModuleId kNoTarget = kNoModule - 1;

    // The child of p on the path from m up to p; kNoModule when m is not below p.
    ModuleId childBelow(ModuleId m, ModuleId p) const
    {
        for (; m != kNoModule; m = m_b.parent(m)) {
            if (m_b.parent(m) == p) {
                return m;
            }
        }
        return kNoModule;
    }

    // Marks id when its value is shared by the numbered siblings of one of its modules.
    void shared(NodeId id)
    {
        for (ModuleId x = m_b.moduleOf(id); x != kNoModule; x = m_b.parent(x)) {
            const ModuleId p = m_b.parent(x);
            if (p == kNoModule || !isNumbered(m_b.path(x))) {
                continue;
            }
            std::vector<ModuleId> children;
            for (NodeId user : m_g.node(id).users) {
                const ModuleId c = childBelow(m_b.moduleOf(user), p);
                if (c != kNoModule && std::find(children.begin(), children.end(), c) ==
                                          children.end()) {
                    children.push_back(c);
                }
            }
            const bool own = std::find(children.begin(), children.end(), x) != children.end();
            if (children.size() >= 3 || (children.size() == 2 && !own)) {
                m_target[id] = m_holdsNodes[p] != 0 ? p : m_b.parent(p);
                m_from[id] = x;
                return;
            }
        }
    }

    // Marks id when all its users are moved out of the numbered module it lies in.
    bool feedsHoisted(NodeId id)
    {
        // The output node does not count: a value saved for the backward is returned too.
        NodeId first = graph::kNoNode;
        for (NodeId user : m_g.node(id).users) {
            if (m_g.node(user).op == OpKind::Output) {
                continue;
            }
            if (first == graph::kNoNode) {
                first = user;
            }
            if (m_target[user] == kNoTarget || m_target[user] != m_target[first] ||
                m_from[user] != m_from[first]) {
                return false;
            }
        }
        if (first == graph::kNoNode || !m_b.isWithin(m_b.moduleOf(id), m_from[first])) {
            return false;
        }
        m_target[id] = m_target[first];
        m_from[id] = m_from[first];
        return true;
    }

    const graph::Graph& m_g;
    ModuleTreeBuilder& m_b;
    std::vector<ModuleId> m_target; // per node: where it moves, or kNoTarget
    std::vector<ModuleId> m_from;   // per moved node: the numbered module it leaves
    std::vector<char> m_holdsNodes; // per module: some node is placed directly in it
};

} // namespace

std::size_t hoistSharedValues(const graph::Graph& graph, ModuleTreeBuilder& builder)
{
    return Hoister(graph, builder).run();
}

} // namespace fxs::structure
