#include "core/structure/structural_hash.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>

namespace fxs::structure {
namespace {

using graph::Argument;
using graph::ArgKind;
using graph::Node;
using graph::NodeId;

// FNV-1a over canonical fields (integers little-endian, texts length-prefixed) with a
// splitmix64 finaliser: deterministic everywhere, and no buffer to build per node. Collisions
// among the few thousand blocks of a graph are not a concern at 64 bits.
class Hasher {
public:
    void bytes(const void* p, std::size_t n)
    {
        const auto* b = static_cast<const unsigned char*>(p);
        for (std::size_t i = 0; i < n; ++i) {
            m_h = (m_h ^ b[i]) * 1099511628211ull;
        }
    }
    void text(std::string_view s)
    {
        u64(s.size());
        bytes(s.data(), s.size());
    }
    void u64(std::uint64_t v)
    {
        for (int k = 0; k < 8; ++k, v >>= 8) {
            m_h = (m_h ^ (v & 0xffu)) * 1099511628211ull;
        }
    }
    std::uint64_t finish() const
    {
        // splitmix64 finaliser: spreads FNV's weak high bits.
        std::uint64_t z = m_h + 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }

private:
    std::uint64_t m_h = 14695981039346656037ull;
};

void hashSymInt(Hasher& h, const graph::SymInt& s)
{
    if (s.isSymbolic()) {
        h.text(s.expr);
    } else {
        h.u64(static_cast<std::uint64_t>(s.value));
    }
}

// strides: false for a value read from outside a subgraph (see structuralHash).
void hashMeta(Hasher& h, const graph::ValueMeta& m, bool strides = true)
{
    h.u64(static_cast<std::uint64_t>(m.kind));
    if (m.kind == graph::ValueMeta::Kind::Tensor) {
        const graph::TensorMeta& t = m.tensor;
        h.u64(static_cast<std::uint64_t>(t.dtype));
        h.u64(t.sizes.size());
        for (const auto& s : t.sizes) {
            hashSymInt(h, s);
        }
        h.u64(t.strides && strides ? t.strides->size() + 1 : 0);
        if (t.strides && strides) {
            for (const auto& s : *t.strides) {
                hashSymInt(h, s);
            }
        }
        h.text(t.device ? t.device->toString() : std::string());
    } else if (m.kind != graph::ValueMeta::Kind::None) {
        h.text(m.text);
    }
}

// refs: how a node reference is hashed (nothing for a signature, a local index or an outside
// slot for a subgraph hash).
template <class Refs>
void hashArgument(Hasher& h, const Argument& a, Refs&& refs)
{
    h.u64(static_cast<std::uint64_t>(a.kind));
    switch (a.kind) {
    case ArgKind::None: break;
    case ArgKind::Bool: h.u64(a.b ? 1 : 0); break;
    case ArgKind::Int: h.u64(static_cast<std::uint64_t>(a.i)); break;
    case ArgKind::Float: {
        std::uint64_t bits = 0;
        std::memcpy(&bits, &a.f, sizeof bits);
        h.u64(bits);
        break;
    }
    case ArgKind::Node: refs(h, a.node); break;
    case ArgKind::List:
    case ArgKind::Tuple:
        h.u64(a.items.size());
        for (const auto& item : a.items) {
            hashArgument(h, item, refs);
        }
        break;
    case ArgKind::Dtype: h.u64(static_cast<std::uint64_t>(a.dtype)); break;
    case ArgKind::Device: h.text(a.device.toString()); break;
    case ArgKind::String:
    case ArgKind::Layout:
    case ArgKind::MemoryFormat:
    case ArgKind::Expr: h.text(a.text); break;
    }
}

// True for an argument that says where a node sits, not what it computes: the offset of
// `prims.inductor_lookup_seed(seeds, k)`, the k-th random stream of the graph, which every
// dropout of every layer reads at its own k.
bool isPositional(const Node& n, std::size_t arg)
{
    return arg == 1 && n.op == graph::OpKind::CallFunction &&
           graph::opBaseName(n.target) == "inductor_lookup_seed";
}

template <class Refs>
void hashNode(Hasher& h, const Node& n, Refs&& refs)
{
    h.u64(static_cast<std::uint64_t>(n.op));
    // Placeholders' and get_attrs' targets are names; call_module targets are paths.
    const bool named = n.op == graph::OpKind::Placeholder || n.op == graph::OpKind::GetAttr ||
                       n.op == graph::OpKind::CallModule;
    h.text(named ? std::string_view() : std::string_view(n.target));
    h.u64(n.args.size());
    for (std::size_t k = 0; k < n.args.size(); ++k) {
        if (isPositional(n, k)) {
            h.u64(0x706f73); // "pos": any offset
            continue;
        }
        hashArgument(h, n.args[k], refs);
    }
    h.u64(n.kwargs.size());
    for (const auto& [key, value] : n.kwargs) {
        h.text(key);
        hashArgument(h, value, refs);
    }
    hashMeta(h, n.meta);
    h.u64(n.multiOutput ? 1 : 0);
    h.u64(static_cast<std::uint64_t>(static_cast<std::int64_t>(n.getitemIndex)));
}

// A copy that only changes the memory layout (`clone(x, memory_format=contiguous_format)`)
// computes nothing: a compiled graph inserts one where a value arrives in another layout, which
// the first of identical layers may not need (torchvision's ViT: the first encoder layer reads
// the contiguous embeddings, the others their residual add's transposed output).
bool isLayoutCopy(const Node& n)
{
    if (n.op != graph::OpKind::CallFunction || graph::opBaseName(n.target) != "clone" ||
        n.inputs.size() != 1) {
        return false;
    }
    return std::any_of(n.kwargs.begin(), n.kwargs.end(),
                       [](const auto& kv) { return kv.first == "memory_format"; });
}

} // namespace

std::uint64_t nodeSignature(const graph::Graph& g, graph::NodeId id)
{
    Hasher h;
    hashNode(h, g.node(id), [](Hasher& hh, NodeId) { hh.u64(0x6e6f6465); });
    return h.finish();
}

std::vector<std::uint64_t> nodeSignatures(const graph::Graph& g)
{
    std::vector<std::uint64_t> out(g.size());
    for (NodeId id = 0; id < g.size(); ++id) {
        out[id] = nodeSignature(g, id);
    }
    return out;
}

std::uint64_t structuralHash(const graph::Graph& g, std::span<const graph::NodeId> nodes,
                             std::span<const std::uint64_t> signatures)
{
    if (nodes.empty()) {
        return 0;
    }
    std::vector<NodeId> order(nodes.begin(), nodes.end());
    std::sort(order.begin(), order.end());
    order.erase(std::unique(order.begin(), order.end()), order.end());
    // Layout copies are transparent: left out, and a reference to one reads its input.
    std::unordered_map<NodeId, NodeId> copies;
    std::erase_if(order, [&](NodeId id) {
        const bool copy = id < g.size() && isLayoutCopy(g.node(id));
        if (copy) {
            copies.emplace(id, g.node(id).inputs.front());
        }
        return copy;
    });
    if (order.empty()) {
        return 0;
    }
    std::unordered_map<NodeId, std::uint64_t> local;
    local.reserve(order.size() * 2);
    for (std::size_t k = 0; k < order.size(); ++k) {
        local.emplace(order[k], k);
    }
    // An outside value is hashed by its meta alone, not by which value it is: a layer whose
    // residual add reads another input than its norm runs the same code as one whose add and
    // norm read one value, only on other arguments. Its strides do not count either: the first
    // layer of torchvision's ViT reads the contiguous embeddings, the others the transposed
    // layout their residual add leaves; the code is the same.
    auto refs = [&](Hasher& h, NodeId ref) {
        for (auto c = copies.find(ref); c != copies.end(); c = copies.find(ref)) {
            ref = c->second;
        }
        if (const auto it = local.find(ref); it != local.end()) {
            h.u64(1);
            h.u64(it->second);
            return;
        }
        h.u64(2);
        if (ref < g.size()) {
            hashMeta(h, g.node(ref).meta, false);
        }
    };
    Hasher h;
    h.u64(order.size());
    for (NodeId id : order) {
        // The signature covers everything but edges; edges are added by position.
        h.u64(signatures.size() == g.size() ? signatures[id] : nodeSignature(g, id));
        const Node& n = g.node(id);
        for (const auto& a : n.args) {
            a.forEachNode([&](NodeId ref) { refs(h, ref); });
        }
        for (const auto& kv : n.kwargs) {
            kv.second.forEachNode([&](NodeId ref) { refs(h, ref); });
        }
    }
    return h.finish();
}

} // namespace fxs::structure
