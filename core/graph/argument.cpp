#include "core/graph/argument.h"

#include <cmath>

namespace fxs::graph {

Argument Argument::boolean(bool v)
{
    Argument a;
    a.kind = ArgKind::Bool;
    a.b = v;
    return a;
}

Argument Argument::integer(std::int64_t v)
{
    Argument a;
    a.kind = ArgKind::Int;
    a.i = v;
    return a;
}

Argument Argument::real(double v)
{
    Argument a;
    a.kind = ArgKind::Float;
    a.f = v;
    return a;
}

Argument Argument::string(std::string v)
{
    Argument a;
    a.kind = ArgKind::String;
    a.text = std::move(v);
    return a;
}

Argument Argument::ref(NodeId id)
{
    Argument a;
    a.kind = ArgKind::Node;
    a.node = id;
    return a;
}

Argument Argument::list(std::vector<Argument> items)
{
    Argument a;
    a.kind = ArgKind::List;
    a.items = std::move(items);
    return a;
}

Argument Argument::tuple(std::vector<Argument> items)
{
    Argument a;
    a.kind = ArgKind::Tuple;
    a.items = std::move(items);
    return a;
}

Argument Argument::ofDtype(DType t)
{
    Argument a;
    a.kind = ArgKind::Dtype;
    a.dtype = t;
    return a;
}

Argument Argument::ofDevice(Device d)
{
    Argument a;
    a.kind = ArgKind::Device;
    a.device = std::move(d);
    return a;
}

Argument Argument::layout(std::string name)
{
    Argument a;
    a.kind = ArgKind::Layout;
    a.text = std::move(name);
    return a;
}

Argument Argument::memoryFormat(std::string name)
{
    Argument a;
    a.kind = ArgKind::MemoryFormat;
    a.text = std::move(name);
    return a;
}

Argument Argument::expr(std::string source)
{
    Argument a;
    a.kind = ArgKind::Expr;
    a.text = std::move(source);
    return a;
}

bool Argument::operator==(const Argument& o) const
{
    if (kind != o.kind) {
        return false;
    }
    switch (kind) {
    case ArgKind::None: return true;
    case ArgKind::Bool: return b == o.b;
    case ArgKind::Int: return i == o.i;
    case ArgKind::Float: return (std::isnan(f) && std::isnan(o.f)) || f == o.f;
    case ArgKind::Node: return node == o.node;
    case ArgKind::List:
    case ArgKind::Tuple: return items == o.items;
    case ArgKind::Dtype: return dtype == o.dtype;
    case ArgKind::Device: return device == o.device;
    default: return text == o.text;
    }
}

std::string argumentToString(const Argument& a, const std::vector<std::string>& names)
{
    return argumentToString(a, [&](NodeId id) -> std::string {
        return id < names.size() ? names[id] : std::string("<?>");
    });
}

} // namespace fxs::graph
