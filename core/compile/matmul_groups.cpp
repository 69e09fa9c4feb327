// Which mm nodes multiply one shared operand (matmul_groups.h). Operands are compared by a key
// made of the operations that produced them: a value is its node, a view is its target, the
// key of what it views and its other arguments, and a backward placeholder filled from the
// forward graph is that forward value's key.
#include "core/compile/matmul_groups.h"

#include "core/codegen/lowering.h"
#include "core/exec/forward_feed.h"
#include "core/graph/op_category.h"

#include <algorithm>
#include <map>
#include <memory>
#include <unordered_map>

namespace fxs::compile {
namespace {

using graph::Graph;
using graph::Node;
using graph::NodeId;

constexpr const char* kMm = "aten::mm.default";

// Views whose result is a function of their input alone (the code generator's views, and
// alias and detach, which eager makes as views): two with the same input and arguments are the
// same value.
bool isPureView(const Node& n)
{
    const std::string_view base = graph::opBaseName(n.target);
    return codegen::isViewNode(n) || (n.isCallFunction() && (base == "alias" || base == "detach"));
}

// Whether a node writes `v` in place, directly or through a view of it (graph::isInPlace).
bool writtenInPlace(const Graph& g, NodeId v, int depth = 0)
{
    if (depth > 64) {
        return true; // too deep to tell: as if written
    }
    for (NodeId u : g.node(v).users) {
        const Node& un = g.node(u);
        if (graph::isInPlace(un)) {
            return true;
        }
        if (!un.isCallFunction()) {
            continue;
        }
        const bool view = isPureView(un) || graph::categorize(un) == graph::OpCategory::View;
        if (view && writtenInPlace(g, u, depth + 1)) {
            return true;
        }
    }
    return false;
}

// MatmulGroup::inputOperands for one operand.
bool unwrittenInput(const Graph& g, NodeId v, const std::vector<bool>& excluded)
{
    for (int depth = 0; depth < 64; ++depth) {
        if (v < excluded.size() && excluded[v]) {
            return false; // a region makes it: a buffer of its own each run
        }
        const Node& n = g.node(v);
        if (n.isPlaceholder()) {
            return !writtenInPlace(g, v);
        }
        if (!isPureView(n) || n.args.empty() || !n.args[0].isNode()) {
            return false;
        }
        v = n.args[0].node;
    }
    return false;
}

class OperandKeys {
public:
    OperandKeys(const Graph& g, const Graph* forward) : m_g(g), m_memo(g.size())
    {
        if (!forward) {
            return;
        }
        auto plan = exec::detail::matchBackwardInputs(*forward, g);
        if (!plan) {
            return; // no feed: placeholders are compared as themselves
        }
        for (const auto& s : plan->sources) {
            if (!s.tangent && s.fwNode != graph::kNoNode && s.bwInput != graph::kNoNode) {
                m_fed[s.bwInput] = s.fwNode;
            }
        }
        m_forward = std::make_unique<OperandKeys>(*forward, nullptr);
    }

    const std::string& key(NodeId id, int depth = 0)
    {
        if (m_memo[id]) {
            return *m_memo[id];
        }
        const Node& n = m_g.node(id);
        std::string k = "#" + std::to_string(id);
        if (auto fed = m_fed.find(id); fed != m_fed.end() && m_forward) {
            k = "fw:" + m_forward->key(fed->second);
        } else if (isPureView(n) && depth < 64 && !n.args.empty() && n.args[0].isNode()) {
            k = n.target + "(" + key(n.args[0].node, depth + 1);
            const auto name = [&](NodeId r) { return m_g.node(r).name; };
            for (std::size_t i = 1; i < n.args.size(); ++i) {
                k += ", " + graph::argumentToString(n.args[i], name);
            }
            for (const auto& [kw, a] : n.kwargs) {
                k += ", " + kw + "=" + graph::argumentToString(a, name);
            }
            k += ")";
        }
        m_memo[id] = std::move(k);
        return *m_memo[id];
    }

private:
    const Graph& m_g;
    std::vector<std::optional<std::string>> m_memo;
    std::unordered_map<NodeId, NodeId> m_fed;
    std::unique_ptr<OperandKeys> m_forward;
};

std::optional<std::vector<std::int64_t>> concreteSizes(const Node& n)
{
    const graph::TensorMeta* m = n.tensorMeta();
    if (!m || m->hasSymbolicSizes()) {
        return std::nullopt;
    }
    std::vector<std::int64_t> s;
    for (const auto& d : m->sizes) {
        s.push_back(d.value);
    }
    return s;
}

// An mm both of whose operands are 2-D floating tensors of one dtype with concrete sizes.
bool candidate(const Graph& g, const Node& n)
{
    if (!n.isCallFunction() || n.target != kMm || n.args.size() != 2 || !n.args[0].isNode() ||
        !n.args[1].isNode() || !concreteSizes(n)) {
        return false;
    }
    const graph::TensorMeta* a = g.node(n.args[0].node).tensorMeta();
    const graph::TensorMeta* b = g.node(n.args[1].node).tensorMeta();
    return a && b && a->rank() == 2 && b->rank() == 2 && !a->hasSymbolicSizes() &&
           !b->hasSymbolicSizes() && a->dtype == b->dtype && graph::isFloatingPoint(a->dtype);
}

// Whether `from` reaches `to` (from < to) along users; nodes after `to` cannot lead to it.
bool reaches(const Graph& g, NodeId from, NodeId to)
{
    std::vector<NodeId> stack{from};
    std::vector<bool> seen(std::size_t(to) + 1, false);
    while (!stack.empty()) {
        const NodeId v = stack.back();
        stack.pop_back();
        for (NodeId u : g.node(v).users) {
            if (u == to) {
                return true;
            }
            if (u < to && !seen[u]) {
                seen[u] = true;
                stack.push_back(u);
            }
        }
    }
    return false;
}

struct Layout {
    std::vector<std::int64_t> sizes;
    std::vector<std::int64_t> strides;
};

std::int64_t dimArg(const Node& n, std::size_t i, std::size_t rank)
{
    if (i >= n.args.size() || n.args[i].kind != graph::ArgKind::Int) {
        return -1;
    }
    std::int64_t d = n.args[i].i;
    return d < 0 ? d + std::int64_t(rank) : d;
}

// The layout a pure view gives its input's layout `in`, or nullopt when it cannot (or it is a
// view this walk does not model). `copies` is set for a reshape that would copy.
std::optional<Layout> viewed(const Node& u, const Layout& in, bool& copies)
{
    const auto sizes = concreteSizes(u);
    if (!sizes) {
        return std::nullopt;
    }
    const std::string_view base = graph::opBaseName(u.target);
    const std::size_t rank = in.sizes.size();
    Layout out{*sizes, in.strides};
    if (base == "view" || base == "_unsafe_view" || base == "reshape") {
        auto s = codegen::viewStrides(in.sizes, in.strides, *sizes);
        if (!s) {
            copies = base == "reshape";
            return std::nullopt;
        }
        out.strides = *s;
    } else if (base == "t" || base == "transpose") {
        const std::int64_t a = base == "t" ? 0 : dimArg(u, 1, rank);
        const std::int64_t b = base == "t" ? 1 : dimArg(u, 2, rank);
        if (rank < 2 && base == "t") {
            return out;
        }
        if (a < 0 || b < 0 || std::size_t(a) >= rank || std::size_t(b) >= rank) {
            return std::nullopt;
        }
        std::swap(out.strides[std::size_t(a)], out.strides[std::size_t(b)]);
    } else if (base == "permute") {
        if (u.args.size() < 2 || !u.args[1].isSequence() || u.args[1].items.size() != rank) {
            return std::nullopt;
        }
        for (std::size_t i = 0; i < rank; ++i) {
            const auto& a = u.args[1].items[i];
            const std::int64_t d = a.i < 0 ? a.i + std::int64_t(rank) : a.i;
            if (a.kind != graph::ArgKind::Int || d < 0 || std::size_t(d) >= rank) {
                return std::nullopt;
            }
            out.strides[i] = in.strides[std::size_t(d)];
        }
    } else if (base == "unsqueeze") {
        const std::int64_t d = dimArg(u, 1, rank + 1);
        if (d < 0 || std::size_t(d) > rank) {
            return std::nullopt;
        }
        const std::size_t at = std::size_t(d);
        const std::int64_t s = at < rank ? in.sizes[at] * in.strides[at] : 1;
        out.strides.insert(out.strides.begin() + std::ptrdiff_t(at), s);
    } else if (base == "expand") {
        if (sizes->size() < rank) {
            return std::nullopt;
        }
        const std::size_t lead = sizes->size() - rank;
        out.strides.assign(sizes->size(), 0);
        for (std::size_t i = lead; i < sizes->size(); ++i) {
            const std::size_t j = i - lead;
            out.strides[i] = in.sizes[j] == (*sizes)[i] ? in.strides[j] : 0;
        }
    } else if (base == "squeeze" || base == "select") {
        const std::int64_t d = dimArg(u, 1, rank);
        if (d < 0 || std::size_t(d) >= rank) {
            return std::nullopt;
        }
        if (base == "select" || in.sizes[std::size_t(d)] == 1) {
            out.strides.erase(out.strides.begin() + std::ptrdiff_t(d));
        }
    } else if (base == "slice") {
        const std::int64_t d = u.args.size() > 1 ? dimArg(u, 1, rank) : 0;
        const std::int64_t step =
            u.args.size() > 4 && u.args[4].kind == graph::ArgKind::Int ? u.args[4].i : 1;
        if (d < 0 || std::size_t(d) >= rank || step < 1) {
            return std::nullopt;
        }
        out.strides[std::size_t(d)] *= step;
    } else if (base != "alias" && base != "detach") {
        return std::nullopt;
    }
    if (out.strides.size() != out.sizes.size()) {
        return std::nullopt;
    }
    return out;
}

// Whether every view a value laid out as `l` passes through before an operator reads it can
// take that layout (an operator takes any strides; a view that would need a copy cannot).
bool viewsTake(const Graph& g, NodeId v, const Layout& l, int depth = 0)
{
    if (depth > 64) {
        return false;
    }
    for (NodeId u : g.node(v).users) {
        const Node& un = g.node(u);
        const bool view = isPureView(un) || graph::categorize(un) == graph::OpCategory::View;
        if (un.isOutput() || !view) {
            continue; // returned, or an operator: any strides
        }
        if (!isPureView(un)) {
            return false; // a view this walk does not follow (as_strided, split, ...)
        }
        if (un.args.empty() || !un.args[0].isNode() || un.args[0].node != v) {
            return false;
        }
        bool copies = false;
        auto next = viewed(un, l, copies);
        if (!next) {
            if (copies) {
                continue; // a reshape that copies: the values are still right
            }
            return false;
        }
        if (!viewsTake(g, u, *next, depth + 1)) {
            return false;
        }
    }
    return true;
}

// Column blocks of a [M, total] row-major product: each member's block must suit its views.
bool columnBlocksFit(const Graph& g, const std::vector<NodeId>& members, std::int64_t total)
{
    return std::all_of(members.begin(), members.end(), [&](NodeId m) {
        const auto s = concreteSizes(g.node(m));
        return s && viewsTake(g, m, Layout{*s, {total, 1}});
    });
}

std::int64_t columnsOf(const Graph& g, const std::vector<NodeId>& members)
{
    std::int64_t total = 0;
    for (NodeId m : members) {
        total += (*concreteSizes(g.node(m)))[1];
    }
    return total;
}

// One leaf of a sum: an mm read only by the add (or by one view read only by the add).
struct SumLeaf {
    NodeId mm = graph::kNoNode;
    NodeId view = graph::kNoNode;
};

bool soleUser(const Graph& g, NodeId v, NodeId user)
{
    return g.node(v).users.size() == 1 && g.node(v).users[0] == user;
}

bool isPlainAdd(const Node& n)
{
    if (!n.isCallFunction() || n.target != "aten::add.Tensor" || n.args.size() != 2 ||
        !n.args[0].isNode() || !n.args[1].isNode() || n.args[0].node == n.args[1].node) {
        return false;
    }
    const graph::Argument* alpha = n.kwarg("alpha");
    return !alpha || (alpha->kind == graph::ArgKind::Int && alpha->i == 1);
}

// The leaves of the add tree under `add` (false when a branch is neither a plain add read
// only by its parent nor an mm leaf); `inner` collects the tree's adds and views.
bool sumLeaves(const Graph& g, NodeId add, const std::vector<bool>& off,
               std::vector<SumLeaf>& leaves, std::vector<NodeId>& inner, int depth = 0)
{
    if (depth > 64) {
        return false;
    }
    inner.push_back(add);
    for (const auto& a : g.node(add).args) {
        const NodeId v = a.node;
        const Node& n = g.node(v);
        if (off[v] || !soleUser(g, v, add)) {
            return false;
        }
        if (isPlainAdd(n)) {
            if (!sumLeaves(g, v, off, leaves, inner, depth + 1)) {
                return false;
            }
            continue;
        }
        SumLeaf leaf;
        if (n.isCallFunction() && (n.target == "aten::view.default" ||
                                   n.target == "aten::_unsafe_view.default") &&
            !n.args.empty() && n.args[0].isNode()) {
            leaf.view = v;
            leaf.mm = n.args[0].node;
            if (off[leaf.mm] || !soleUser(g, leaf.mm, v)) {
                return false;
            }
            inner.push_back(v);
        } else {
            leaf.mm = v;
        }
        if (!candidate(g, g.node(leaf.mm))) {
            return false;
        }
        leaves.push_back(leaf);
    }
    return true;
}

// Sums of products (MatmulGroup::shared == 2), the latest root first; their nodes get `taken`.
void findSums(const Graph& g, const std::vector<bool>& excluded, std::vector<bool>& taken,
              std::vector<MatmulGroup>& groups)
{
    std::vector<bool> off(g.size(), false);
    for (std::size_t i = 0; i < off.size(); ++i) {
        off[i] = (i < excluded.size() && excluded[i]) || taken[i];
    }
    for (std::size_t i = g.size(); i-- > 0;) {
        const Node& root = g.node(NodeId(i));
        if (off[i] || !isPlainAdd(root) || !concreteSizes(root)) {
            continue;
        }
        std::vector<SumLeaf> leaves;
        std::vector<NodeId> inner;
        if (!sumLeaves(g, root.id, off, leaves, inner) || leaves.size() < 2) {
            continue;
        }
        const auto sizeOf = [&](NodeId id) { return *concreteSizes(g.node(id)); };
        const auto shape = sizeOf(leaves[0].mm);
        const auto dtype = g.node(leaves[0].mm).tensorMeta()->dtype;
        const auto out = *concreteSizes(root);
        std::int64_t numel = 1;
        for (auto d : out) {
            numel *= d;
        }
        const bool same = std::all_of(leaves.begin(), leaves.end(), [&](const SumLeaf& l) {
            const auto viewed = l.view == graph::kNoNode ? sizeOf(l.mm) : sizeOf(l.view);
            return sizeOf(l.mm) == shape && viewed == out &&
                   g.node(l.mm).tensorMeta()->dtype == dtype;
        });
        if (!same || numel != shape[0] * shape[1]) {
            continue;
        }
        MatmulGroup grp;
        grp.shared = 2;
        grp.root = root.id;
        for (const auto& l : leaves) {
            grp.nodes.push_back(l.mm);
        }
        std::sort(grp.nodes.begin(), grp.nodes.end()); // the tree gave them root first
        std::sort(inner.begin(), inner.end());
        grp.sumNodes = inner;
        for (NodeId id : grp.nodes) {
            taken[id] = off[id] = true;
        }
        for (NodeId id : inner) {
            taken[id] = off[id] = true;
        }
        groups.push_back(std::move(grp));
    }
}

// Whether only the graph's output reads `v`, directly or through pure views.
bool onlyOutputsRead(const Graph& g, NodeId v, int depth = 0)
{
    if (depth > 64 || g.node(v).users.empty()) {
        return false; // too deep to tell, or dead: not worth a group
    }
    return std::all_of(g.node(v).users.begin(), g.node(v).users.end(), [&](NodeId u) {
        const Node& un = g.node(u);
        return un.isOutput() || (isPureView(un) && onlyOutputsRead(g, u, depth + 1));
    });
}

// Batched groups (MatmulGroup::shared == 3) among the candidates not taken yet.
void findBatched(const Graph& g, const std::vector<bool>& excluded, std::vector<bool>& taken,
                 std::vector<MatmulGroup>& groups)
{
    std::map<std::string, std::vector<NodeId>> buckets;
    std::vector<std::string> order;
    for (const Node& n : g.nodes()) {
        if (taken[n.id] || (n.id < excluded.size() && excluded[n.id]) || !candidate(g, n) ||
            !onlyOutputsRead(g, n.id)) {
            continue;
        }
        const std::string bucket = g.node(n.args[0].node).tensorMeta()->toString() + "|" +
                                   g.node(n.args[1].node).tensorMeta()->toString();
        auto [it, fresh] = buckets.try_emplace(bucket);
        if (fresh) {
            order.push_back(bucket);
        }
        it->second.push_back(n.id);
    }
    const auto emit = [&](std::vector<NodeId>& members) {
        if (members.size() >= 2) {
            MatmulGroup grp;
            grp.shared = 3;
            grp.nodes = members;
            for (NodeId m : members) {
                taken[m] = true;
            }
            groups.push_back(std::move(grp));
        }
        members.clear();
    };
    for (const std::string& b : order) {
        std::vector<NodeId> members;
        std::int64_t deferred = 0; // operands kept alive for the group, graph inputs aside
        for (NodeId n : buckets[b]) {
            const bool apart = std::none_of(members.begin(), members.end(), [&](NodeId m) {
                return reaches(g, std::min(m, n), std::max(m, n));
            });
            if (!apart) {
                continue;
            }
            std::int64_t bytes = 0;
            for (const auto& a : g.node(n).args) {
                const Node& operand = g.node(a.node);
                bytes += operand.isPlaceholder() ? 0 : operand.tensorMeta()->nbytes().value_or(0);
            }
            if (!members.empty() && deferred + bytes > kMaxDeferredBytes) {
                emit(members);
                deferred = 0;
            }
            members.push_back(n);
            deferred += bytes;
        }
        emit(members);
    }
}

} // namespace

std::vector<MatmulGroup> findMatmulGroups(const Graph& g, const Graph* forward,
                                          const std::vector<bool>& excluded, bool batched)
{
    OperandKeys keys(g, forward);
    std::vector<bool> taken(g.size(), false);
    std::vector<MatmulGroup> groups;
    findSums(g, excluded, taken, groups);
    for (int shared : {0, 1}) {
        std::map<std::string, std::vector<NodeId>> buckets;
        std::vector<std::string> order; // keys by their first node, for a stable numbering
        for (const Node& n : g.nodes()) {
            if (taken[n.id] || (n.id < excluded.size() && excluded[n.id]) || !candidate(g, n)) {
                continue;
            }
            const NodeId operand = n.args[std::size_t(shared)].node;
            const std::string& k = keys.key(operand);
            const graph::TensorMeta* other =
                g.node(n.args[std::size_t(1 - shared)].node).tensorMeta();
            const std::string bucket = k + "|" + g.node(operand).tensorMeta()->toString() + "|" +
                                       std::string(graph::dtypeTorchName(other->dtype));
            auto [it, fresh] = buckets.try_emplace(bucket);
            if (fresh) {
                order.push_back(bucket);
            }
            it->second.push_back(n.id);
        }
        for (const std::string& b : order) {
            std::vector<NodeId> members;
            for (NodeId n : buckets[b]) {
                const bool apart = std::none_of(members.begin(), members.end(), [&](NodeId m) {
                    return reaches(g, std::min(m, n), std::max(m, n));
                });
                if (apart) {
                    members.push_back(n);
                }
            }
            // Column blocks: drop the last member while some block's views cannot take the
            // strides (the total width changes them).
            while (shared == 0 && members.size() >= 2 &&
                   !columnBlocksFit(g, members, columnsOf(g, members))) {
                members.pop_back();
            }
            if (members.size() < 2) {
                continue;
            }
            MatmulGroup grp;
            grp.shared = shared;
            grp.sameByGraph = b.find("fw:") == std::string::npos;
            grp.nodes = members; // graph order
            for (NodeId m : members) {
                taken[m] = true;
            }
            groups.push_back(std::move(grp));
        }
    }
    if (batched) {
        findBatched(g, excluded, taken, groups);
    }
    std::sort(groups.begin(), groups.end(),
              [](const MatmulGroup& a, const MatmulGroup& b) { return a.nodes[0] < b.nodes[0]; });
    for (std::size_t i = 0; i < groups.size(); ++i) {
        MatmulGroup& grp = groups[i];
        grp.id = "mm" + std::to_string(i);
        for (std::size_t side : {0u, 1u}) {
            const auto unwritten = [&](NodeId m) {
                return unwrittenInput(g, g.node(m).args[side].node, excluded);
            };
            grp.inputOperands[side] = grp.shared != 3 && // a batched group joins nothing
                                      std::all_of(grp.nodes.begin(), grp.nodes.end(), unwritten);
        }
    }
    return groups;
}

std::vector<std::string> matmulSumNodeNames(const Graph& g)
{
    std::vector<bool> taken(g.size(), false);
    std::vector<MatmulGroup> sums;
    findSums(g, {}, taken, sums);
    std::vector<NodeId> ids;
    for (const auto& grp : sums) {
        ids.insert(ids.end(), grp.sumNodes.begin(), grp.sumNodes.end());
    }
    std::sort(ids.begin(), ids.end());
    std::vector<std::string> names;
    for (NodeId id : ids) {
        names.push_back(g.node(id).name);
    }
    return names;
}

} // namespace fxs::compile
