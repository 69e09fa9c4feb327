// Schema-driven conversion of FX arguments into stack recipes. Everything that can be decided
// from the graph alone (literals, lists of literals, dtypes, devices, wrapped-number tensors)
// becomes a constant here, once per graph; only node references are looked up per call.
#include "core/exec/execution_plan.h"
#include "core/exec/torch_bridge.h"

#include <ATen/ScalarOps.h>

namespace fxs::exec::detail {
namespace {

using graph::ArgKind;
using graph::Argument;

struct Ctx {
    c10::Device device;
    std::string& reason;
};

bool fail(Ctx& ctx, std::string why)
{
    ctx.reason = std::move(why);
    return false;
}

ArgStep constant(c10::IValue v)
{
    ArgStep s;
    s.constant = std::move(v);
    return s;
}

ArgStep slot(graph::NodeId id)
{
    ArgStep s;
    s.kind = ArgStep::Kind::Slot;
    s.slot = id;
    return s;
}

std::optional<c10::Layout> layoutOf(const std::string& name)
{
    if (name == "strided") {
        return c10::kStrided;
    }
    if (name == "sparse_coo") {
        return c10::kSparse;
    }
    return std::nullopt;
}

std::optional<c10::MemoryFormat> memoryFormatOf(const std::string& name)
{
    if (name == "contiguous_format") {
        return c10::MemoryFormat::Contiguous;
    }
    if (name == "channels_last") {
        return c10::MemoryFormat::ChannelsLast;
    }
    if (name == "channels_last_3d") {
        return c10::MemoryFormat::ChannelsLast3d;
    }
    if (name == "preserve_format") {
        return c10::MemoryFormat::Preserve;
    }
    return std::nullopt;
}

c10::Device deviceOf(const graph::Device& d, c10::Device run)
{
    // Graphs name the device they were recorded on; every device argument follows the run's.
    return d.type == "meta" ? c10::Device(c10::kMeta) : run;
}

// int-like schema types: int, SymInt, and the enums 1.13 spells as int (ScalarType, Layout,
// MemoryFormat) or 2.x as their own types.
bool convertIntLike(const Argument& a, Ctx& ctx, ArgStep& out)
{
    switch (a.kind) {
    case ArgKind::Int:
        out = constant(a.i);
        return true;
    case ArgKind::Bool:
        out = constant(static_cast<std::int64_t>(a.b));
        return true;
    case ArgKind::Node:
        out = slot(a.node);
        return true;
    case ArgKind::Dtype: {
        auto st = toScalarType(a.dtype);
        if (!st) {
            return fail(ctx, "dtype not available in this LibTorch");
        }
        out = constant(static_cast<std::int64_t>(*st));
        return true;
    }
    case ArgKind::Layout: {
        auto l = layoutOf(a.text);
        if (!l) {
            return fail(ctx, "unknown layout " + a.text);
        }
        out = constant(static_cast<std::int64_t>(*l));
        return true;
    }
    case ArgKind::MemoryFormat: {
        auto m = memoryFormatOf(a.text);
        if (!m) {
            return fail(ctx, "unknown memory format " + a.text);
        }
        out = constant(static_cast<std::int64_t>(*m));
        return true;
    }
    default:
        return fail(ctx, "expected an integer");
    }
}

bool convert(const Argument& a, const c10::TypePtr& type, std::int64_t fixedN, Ctx& ctx,
             ArgStep& out);

bool convertList(const Argument& a, const c10::ListType& lt, std::int64_t fixedN, Ctx& ctx,
                 ArgStep& out)
{
    const auto elem = lt.getElementType();
    const auto ek = elem->kind();
    const bool intElems = ek == c10::TypeKind::IntType || ek == c10::TypeKind::SymIntType;
    if (!a.isSequence()) {
        // Python lets `int[2]` take one int: broadcast it.
        if (intElems && a.kind == ArgKind::Int) {
            out = constant(std::vector<std::int64_t>(fixedN > 0 ? fixedN : 1, a.i));
            return true;
        }
        if (a.kind == ArgKind::Node) {
            out = slot(a.node); // a node that already holds a list
            return true;
        }
        return fail(ctx, "expected a list");
    }
    std::vector<ArgStep> items;
    bool allConst = true;
    for (const auto& item : a.items) {
        ArgStep s;
        if (!convert(item, elem, 0, ctx, s)) {
            return false;
        }
        allConst = allConst && s.kind == ArgStep::Kind::Const;
        items.push_back(std::move(s));
    }
    if (ek == c10::TypeKind::TensorType) {
        out.kind = ArgStep::Kind::TensorList;
    } else if (ek == c10::TypeKind::OptionalType) {
        out.kind = ArgStep::Kind::OptTensorList;
    } else if (intElems || ek == c10::TypeKind::FloatType || ek == c10::TypeKind::BoolType) {
        if (allConst) {
            if (intElems) {
                std::vector<std::int64_t> v;
                for (const auto& s : items) {
                    v.push_back(s.constant.toInt());
                }
                out = constant(std::move(v));
            } else if (ek == c10::TypeKind::FloatType) {
                std::vector<double> v;
                for (const auto& s : items) {
                    v.push_back(s.constant.toDouble());
                }
                out = constant(std::move(v));
            } else {
                c10::List<bool> v;
                for (const auto& s : items) {
                    v.push_back(s.constant.toBool());
                }
                out = constant(std::move(v));
            }
            return true;
        }
        if (ek == c10::TypeKind::BoolType) {
            return fail(ctx, "bool list with node references");
        }
        out.kind = intElems ? ArgStep::Kind::IntList : ArgStep::Kind::FloatList;
    } else {
        return fail(ctx, "unsupported list element type " + elem->str());
    }
    out.items = std::move(items);
    return true;
}

bool convertTensor(const Argument& a, Ctx& ctx, ArgStep& out)
{
    // Python numbers passed where a Tensor is expected become wrapped-number tensors, which
    // type promotion treats like scalars (as torch's argument parser does).
    switch (a.kind) {
    case ArgKind::Node:
        out = slot(a.node);
        return true;
    case ArgKind::None: // Python passes None for a Tensor argument as an undefined tensor
        out = constant(at::Tensor());
        return true;
    case ArgKind::Int:
    case ArgKind::Float:
    case ArgKind::Bool: {
        const c10::Scalar s = a.kind == ArgKind::Int     ? c10::Scalar(a.i)
                              : a.kind == ArgKind::Float ? c10::Scalar(a.f)
                                                         : c10::Scalar(a.b);
        at::Tensor t = c10::scalar_to_tensor(s);
        t.unsafeGetTensorImpl()->set_wrapped_number(true);
        out = constant(std::move(t));
        return true;
    }
    default:
        return fail(ctx, "expected a tensor");
    }
}

// float, Scalar (int/float/bool kept as given), bool and str parameters.
bool convertScalar(const Argument& a, c10::TypeKind kind, Ctx& ctx, ArgStep& out)
{
    if (a.kind == ArgKind::Node) {
        out = slot(a.node); // a SymInt/SymFloat computed by another node
        return true;
    }
    const bool number = a.kind == ArgKind::Int || a.kind == ArgKind::Float;
    switch (kind) {
    case c10::TypeKind::FloatType:
        if (number) {
            out = constant(a.kind == ArgKind::Float ? a.f : static_cast<double>(a.i));
            return true;
        }
        return fail(ctx, "expected a float");
    case c10::TypeKind::NumberType:
        if (number || a.kind == ArgKind::Bool) {
            out = a.kind == ArgKind::Int     ? constant(a.i)
                  : a.kind == ArgKind::Float ? constant(a.f)
                                             : constant(a.b);
            return true;
        }
        return fail(ctx, "expected a number");
    case c10::TypeKind::BoolType:
        if (a.kind == ArgKind::Bool || a.kind == ArgKind::Int) {
            out = constant(a.kind == ArgKind::Bool ? a.b : a.i != 0);
            return true;
        }
        return fail(ctx, "expected a bool");
    default:
        if (a.kind == ArgKind::String) {
            out = constant(a.text);
            return true;
        }
        return fail(ctx, "expected a string");
    }
}

bool convert(const Argument& a, const c10::TypePtr& type, std::int64_t fixedN, Ctx& ctx,
             ArgStep& out)
{
    if (a.kind == ArgKind::Expr) {
        return fail(ctx, "argument is an expression fxscope does not model: " + a.text);
    }
    switch (type->kind()) {
    case c10::TypeKind::OptionalType:
        if (a.kind == ArgKind::None) {
            out = constant(c10::IValue());
            return true;
        }
        return convert(a, type->expectRef<c10::OptionalType>().getElementType(), fixedN, ctx,
                       out);
    case c10::TypeKind::TensorType:
        return convertTensor(a, ctx, out);
    case c10::TypeKind::IntType:
    case c10::TypeKind::SymIntType:
    case c10::TypeKind::ScalarTypeType:
    case c10::TypeKind::LayoutType:
    case c10::TypeKind::MemoryFormatType:
        return convertIntLike(a, ctx, out);
    case c10::TypeKind::FloatType:
    case c10::TypeKind::NumberType:
    case c10::TypeKind::BoolType:
    case c10::TypeKind::StringType:
        return convertScalar(a, type->kind(), ctx, out);
    case c10::TypeKind::DeviceObjType: {
        if (a.kind == ArgKind::Device) {
            out = constant(deviceOf(a.device, ctx.device));
            return true;
        }
        auto d = a.kind == ArgKind::String ? graph::Device::parse(a.text) : std::nullopt;
        if (!d) {
            return fail(ctx, "expected a device");
        }
        out = constant(deviceOf(*d, ctx.device));
        return true;
    }
    case c10::TypeKind::ListType:
        return convertList(a, type->expectRef<c10::ListType>(), fixedN, ctx, out);
    default:
        return fail(ctx, "unsupported schema type " + type->str());
    }
}

} // namespace

bool planArguments(const graph::Node& node, const c10::FunctionSchema& schema, c10::Device device,
                   std::vector<ArgStep>& out, std::string& reason)
{
    const auto& params = schema.arguments();
    if (node.args.size() > params.size()) {
        reason = "too many arguments for " + schema.name();
        return false;
    }
    std::vector<const Argument*> given(params.size(), nullptr);
    for (std::size_t i = 0; i < node.args.size(); ++i) {
        given[i] = &node.args[i];
    }
    for (const auto& [key, value] : node.kwargs) {
        auto idx = schema.argumentIndexWithName(key);
        if (!idx) {
            reason = "unknown keyword argument '" + key + "'";
            return false;
        }
        given[*idx] = &value;
    }
    Ctx ctx{device, reason};
    out.clear();
    out.reserve(params.size());
    for (std::size_t i = 0; i < params.size(); ++i) {
        const auto& p = params[i];
        ArgStep step;
        if (given[i]) {
            if (!convert(*given[i], p.type(), p.N().value_or(0), ctx, step)) {
                reason = "argument '" + p.name() + "': " + reason;
                return false;
            }
        } else if (p.default_value()) {
            step = constant(*p.default_value());
        } else {
            reason = "missing argument '" + p.name() + "'";
            return false;
        }
        out.push_back(std::move(step));
    }
    return true;
}

void pushArgument(const ArgStep& arg, const std::vector<c10::IValue>& slots, Stack& stack)
{
    switch (arg.kind) {
    case ArgStep::Kind::Const:
        stack.push_back(arg.constant);
        return;
    case ArgStep::Kind::Slot:
        stack.push_back(slots[arg.slot]);
        return;
    case ArgStep::Kind::TensorList: {
        c10::List<at::Tensor> list;
        list.reserve(arg.items.size());
        for (const auto& item : arg.items) {
            list.push_back(slots[item.slot].toTensor());
        }
        stack.emplace_back(std::move(list));
        return;
    }
    case ArgStep::Kind::OptTensorList: {
        c10::List<c10::optional<at::Tensor>> list;
        list.reserve(arg.items.size());
        for (const auto& item : arg.items) {
            if (item.kind == ArgStep::Kind::Slot) {
                list.push_back(slots[item.slot].toTensor());
            } else {
                list.push_back(c10::nullopt);
            }
        }
        stack.emplace_back(std::move(list));
        return;
    }
    case ArgStep::Kind::IntList:
    case ArgStep::Kind::FloatList: {
        const bool ints = arg.kind == ArgStep::Kind::IntList;
        std::vector<std::int64_t> iv;
        std::vector<double> fv;
        for (const auto& item : arg.items) {
            const auto& v = item.kind == ArgStep::Kind::Slot ? slots[item.slot] : item.constant;
            if (ints) {
                iv.push_back(v.isTensor() ? v.toTensor().item<std::int64_t>() : v.toInt());
            } else {
                fv.push_back(v.isTensor() ? v.toTensor().item<double>() : v.toScalar().toDouble());
            }
        }
        if (ints) {
            stack.emplace_back(std::move(iv));
        } else {
            stack.emplace_back(std::move(fv));
        }
        return;
    }
    }
}

} // namespace fxs::exec::detail
