// One argument of a node, as the printed graph code writes it: a reference to another node, a
// Python literal (None, bool, int, float incl. inf/nan, str), a list or tuple of arguments,
// or a torch constant (dtype, device, layout, memory format). Anything else the parser could
// read but fxscope does not model (e.g. `slice(None, 2)`) is kept as an Expr with its text.
#pragma once

#include "core/graph/dtype.h"
#include "core/graph/tensor_meta.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fxs::graph {

using NodeId = std::uint32_t;
inline constexpr NodeId kNoNode = 0xffffffffu;

enum class ArgKind : std::uint8_t {
    None,
    Bool,
    Int,
    Float,
    String,
    Node,
    List,
    Tuple,
    Dtype,
    Device,
    Layout,       // text: "strided", "sparse_coo", ...
    MemoryFormat, // text: "contiguous_format", "channels_last", "preserve_format"
    Expr,         // text: any other expression, verbatim
};

struct Argument {
    ArgKind kind = ArgKind::None;
    bool b = false;
    std::int64_t i = 0;
    double f = 0.0;
    std::string text;            // String value, Layout/MemoryFormat name, Expr source
    NodeId node = kNoNode;       // Node
    DType dtype = DType::Unknown; // Dtype
    Device device;               // Device
    std::vector<Argument> items; // List, Tuple

    static Argument none() { return {}; }
    static Argument boolean(bool v);
    static Argument integer(std::int64_t v);
    static Argument real(double v);
    static Argument string(std::string v);
    static Argument ref(NodeId id);
    static Argument list(std::vector<Argument> items);
    static Argument tuple(std::vector<Argument> items);
    static Argument ofDtype(DType t);
    static Argument ofDevice(Device d);
    static Argument layout(std::string name);
    static Argument memoryFormat(std::string name);
    static Argument expr(std::string source);

    bool isNode() const { return kind == ArgKind::Node; }
    bool isSequence() const { return kind == ArgKind::List || kind == ArgKind::Tuple; }
    // Calls f(NodeId) for every node reference, depth first, in order.
    template <class F>
    void forEachNode(F&& f) const
    {
        if (kind == ArgKind::Node) {
            f(node);
        }
        for (const auto& a : items) {
            a.forEachNode(f);
        }
    }
    bool operator==(const Argument&) const;
};

// Python-style text of an argument; node references print as the name nameOf(id) returns.
template <class NameOf>
std::string argumentToString(const Argument& a, NameOf&& nameOf);
std::string argumentToString(const Argument& a, const std::vector<std::string>& names);

} // namespace fxs::graph

#include "core/graph/argument_print.inl"
