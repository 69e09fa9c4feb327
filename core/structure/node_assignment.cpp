#include "core/structure/node_assignment.h"

#include <algorithm>
#include <cctype>

namespace fxs::structure {
namespace {

using graph::Node;
using graph::NodeId;
using graph::OpKind;

std::string_view lastComponent(std::string_view path)
{
    const auto dot = path.rfind('.');
    return dot == std::string_view::npos ? path : path.substr(dot + 1);
}

bool isNumbered(std::string_view path)
{
    const std::string_view last = lastComponent(path);
    return !last.empty() && std::all_of(last.begin(), last.end(),
                                        [](char c) { return c >= '0' && c <= '9'; });
}

// True when code reads `.name` as a whole attribute (`self.ln2(x)`, not `self.ln20`).
bool mentionsAttribute(std::string_view code, std::string_view name)
{
    if (name.empty()) {
        return false;
    }
    for (auto at = code.find(name); at != std::string_view::npos; at = code.find(name, at + 1)) {
        const std::size_t end = at + name.size();
        const bool ident = end < code.size() && (std::isalnum(static_cast<unsigned char>(code[end])) != 0 ||
                                                 code[end] == '_');
        if (at > 0 && code[at - 1] == '.' && !ident) {
            return true;
        }
    }
    return false;
}

bool sameScope(const graph::SourceLoc& a, const graph::SourceLoc& b)
{
    return a.known() && b.known() && a.file == b.file && a.function == b.function;
}

class Assigner {
public:
    Assigner(const graph::Graph& g, ModuleTreeBuilder& b) : m_g(g), m_b(b) {}

    void run()
    {
        anchors();
        m_hasChildren.assign(m_b.moduleCount(), 0);
        for (ModuleId m = 0; m < m_b.moduleCount(); ++m) {
            if (m_b.parent(m) != kNoModule) {
                m_hasChildren[m_b.parent(m)] = 1;
            }
        }
        m_direction = lineDirection();
        codeScopes();
        gaps();
    }

private:
    bool candidate(NodeId id) const
    {
        const Node& n = m_g.node(id);
        return n.op != OpKind::Placeholder && n.op != OpKind::Output &&
               m_b.moduleOf(id) == kNoModule;
    }

    // Step 1: inputs with a module are parameter-side; nodes using them are anchors.
    void anchors()
    {
        m_paramSide.assign(m_g.size(), 0);
        m_anchor.assign(m_g.size(), 0);
        for (NodeId id = 0; id < m_g.size(); ++id) {
            const Node& n = m_g.node(id);
            if (n.op == OpKind::Output) {
                continue;
            }
            if (m_b.moduleOf(id) != kNoModule) {
                const bool input = n.op == OpKind::Placeholder || n.op == OpKind::GetAttr;
                (input ? m_paramSide : m_anchor)[id] = 1;
                continue;
            }
            if (n.op == OpKind::Placeholder) {
                continue;
            }
            ModuleId common = kNoModule;
            bool any = false;
            bool all = !n.inputs.empty();
            for (NodeId in : n.inputs) {
                if (m_paramSide[in] == 0) {
                    all = false;
                    continue;
                }
                common = any ? m_b.commonAncestor(common, m_b.moduleOf(in)) : m_b.moduleOf(in);
                any = true;
            }
            if (any && common != kNoModule) {
                m_b.assign(id, common);
                m_anchor[id] = 1;
                m_paramSide[id] = all ? 1 : 0;
            }
        }
    }

    // Where each module's own code runs: an anchor whose statement names its module
    // (`out = self.conv1(x)`) is a line of its parent's code. Numbered children (`layers.3`) are
    // called by a loop or a container, never by name, and say nothing.
    void codeScopes()
    {
        m_codeScopes.assign(m_b.moduleCount(), {});
        for (NodeId id = 0; id < m_g.size(); ++id) {
            const ModuleId m = m_b.moduleOf(id);
            const graph::SourceLoc& at = m_g.node(id).source;
            if (m_anchor[id] == 0 || m == kNoModule || m_b.parent(m) == kNoModule ||
                isNumbered(m_b.path(m)) ||
                !mentionsAttribute(at.code, lastComponent(m_b.path(m)))) {
                continue;
            }
            auto& scopes = m_codeScopes[m_b.parent(m)];
            if (std::none_of(scopes.begin(), scopes.end(),
                             [&](const graph::SourceLoc* s) { return sameScope(*s, at); })) {
                scopes.push_back(&at);
            }
        }
    }

    // False when m's code is known to run in certain functions and the node's statement is in
    // another: ResNet's avgpool and flatten after the last BasicBlock run in `_forward_impl`,
    // not in the block's `forward`.
    bool mayBeCodeOf(ModuleId m, NodeId id) const
    {
        const graph::SourceLoc& at = m_g.node(id).source;
        if (m == kNoModule || m_codeScopes[m].empty() || !at.known()) {
            return true;
        }
        const auto& scopes = m_codeScopes[m];
        return std::any_of(scopes.begin(), scopes.end(),
                           [&](const graph::SourceLoc* s) { return sameScope(*s, at); });
    }

    // +1 when statements of one function appear with rising line numbers (forward graphs),
    // -1 when mostly falling (backward graphs replay the forward statements in reverse).
    int lineDirection() const
    {
        long rising = 0;
        long falling = 0;
        const graph::SourceLoc* last = nullptr;
        for (const Node& n : m_g.nodes()) {
            if (!n.source.known()) {
                continue;
            }
            if (last != nullptr && sameScope(*last, n.source)) {
                rising += n.source.line > last->line ? 1 : 0;
                falling += n.source.line < last->line ? 1 : 0;
            }
            last = &n.source;
        }
        return falling > rising ? -1 : 1;
    }

    void gaps()
    {
        NodeId prev = graph::kNoNode;
        std::vector<NodeId> pending;
        for (NodeId id = 0; id < m_g.size(); ++id) {
            if (m_anchor[id] != 0) {
                gap(prev, id, pending);
                pending.clear();
                prev = id;
            } else if (candidate(id)) {
                pending.push_back(id);
            }
        }
        gap(prev, graph::kNoNode, pending);
    }

    // Steps 2 and 3 for the nodes strictly between anchors prev and next (either may be none).
    void gap(NodeId prev, NodeId next, const std::vector<NodeId>& nodes)
    {
        if (nodes.empty()) {
            return;
        }
        const ModuleId a = prev == graph::kNoNode ? kNoModule : m_b.moduleOf(prev);
        const ModuleId b = next == graph::kNoNode ? kNoModule : m_b.moduleOf(next);
        const ModuleId common = m_b.commonAncestor(a, b);
        if (a != kNoModule && b != kNoModule && (a == b || common == b)) {
            for (NodeId id : nodes) {
                m_b.assign(id, common);
            }
            return;
        }
        const ModuleId owner = prologueOwner(next, common);
        const std::size_t prologue = owner == kNoModule ? nodes.size() : prologueStart(next, nodes);
        for (std::size_t k = prologue; k < nodes.size(); ++k) {
            m_b.assign(nodes[k], owner);
        }
        if (a == kNoModule) {
            return;
        }
        if (common == a) { // next lies inside prev's module: the rest is prev's module's code
            for (std::size_t k = 0; k < prologue; ++k) {
                m_b.assign(nodes[k], a);
            }
            return;
        }
        const ModuleId side = childOnPath(a, common);
        const ModuleId epilogue = numberedContainer(a, side);
        for (std::size_t k = 0; k < prologue; ++k) {
            const bool ends = usesSide(nodes[k], side) && mayBeCodeOf(epilogue, nodes[k]);
            m_b.assign(nodes[k], ends ? epilogue : common);
        }
    }

    // Whose code the statements just before next are (kNoModule: nobody's in particular).
    // Next's own, unless next's statement names its module (`x = self.ln2(x)`): then it is the
    // caller's code, and so are the caller's statements before it — the caller is next's
    // parent (BertPooler's `hidden_states[:, 0]` before `self.dense(...)` is `pooler`'s, not the
    // last encoder layer's epilogue) when that lies below the common module and the graph's
    // statements run forwards; else they are left to the epilogue rule.
    ModuleId prologueOwner(NodeId next, ModuleId common) const
    {
        if (next == graph::kNoNode) {
            return kNoModule;
        }
        const ModuleId b = m_b.moduleOf(next);
        if (!mentionsAttribute(m_g.node(next).source.code, lastComponent(m_b.path(b)))) {
            return b;
        }
        // Only where statements run forwards: in a graph read as running backwards (a
        // backward graph, or a forward one whose two-line block looks like it), "before next"
        // would reach into the statements after the caller's call.
        const ModuleId caller = m_b.parent(b);
        return caller != kNoModule && caller != common && m_direction > 0 ? caller : kNoModule;
    }

    // Index in nodes where the run of statements of next's function just before it starts
    // (nodes.size() when there is none).
    std::size_t prologueStart(NodeId next, const std::vector<NodeId>& nodes) const
    {
        const graph::SourceLoc& at = m_g.node(next).source;
        const ModuleId b = m_b.moduleOf(next);
        std::vector<char> used(nodes.size(), 0);
        std::size_t start = nodes.size();
        for (std::size_t k = nodes.size(); k-- > 0;) {
            const graph::SourceLoc& s = m_g.node(nodes[k]).source;
            if (!sameScope(s, at) || (s.line - at.line) * m_direction > 0) {
                break;
            }
            for (NodeId user : m_g.node(nodes[k]).users) {
                const auto it = std::lower_bound(nodes.begin(), nodes.end(), user);
                const bool inRun = it != nodes.end() && *it == user &&
                                   static_cast<std::size_t>(it - nodes.begin()) > k;
                if (user == next || (inRun && used[it - nodes.begin()] != 0) ||
                    (!inRun && m_b.isWithin(m_b.moduleOf(user), b))) {
                    used[k] = 1;
                }
            }
            if (used[k] != 0) {
                start = k;
            }
        }
        return start;
    }

    // The ancestor of m (or m) that is a child of top; the root of m when top is none.
    ModuleId childOnPath(ModuleId m, ModuleId top) const
    {
        while (m_b.parent(m) != top) {
            m = m_b.parent(m);
        }
        return m;
    }

    // The deepest numbered module with children from m up to side, else side's parent.
    ModuleId numberedContainer(ModuleId m, ModuleId side) const
    {
        for (ModuleId x = m;; x = m_b.parent(x)) {
            if (m_hasChildren[x] != 0 && isNumbered(m_b.path(x))) {
                return x;
            }
            if (x == side) {
                return m_b.parent(side);
            }
        }
    }

    bool usesSide(NodeId id, ModuleId side) const
    {
        const auto& ins = m_g.node(id).inputs;
        return std::any_of(ins.begin(), ins.end(),
                           [&](NodeId in) { return m_b.isWithin(m_b.moduleOf(in), side); });
    }

    const graph::Graph& m_g;
    ModuleTreeBuilder& m_b;
    std::vector<char> m_paramSide;
    std::vector<char> m_anchor;
    std::vector<char> m_hasChildren;
    // Per module: one statement of each function its own code runs in (codeScopes).
    std::vector<std::vector<const graph::SourceLoc*>> m_codeScopes;
    int m_direction = 1;
};

} // namespace

void assignNodes(const graph::Graph& graph, ModuleTreeBuilder& builder)
{
    Assigner(graph, builder).run();
}

} // namespace fxs::structure
