// Python `operator` builtins that appear in FX graphs (SymInt arithmetic of dynamic-shape
// graphs: `mul = operator.mul(sym_size, 4)`). Ints stay ints; any float makes a float.
#include "core/exec/composites.h"

#include <cmath>
#include <functional>
#include <map>
#include <string>

namespace fxs::exec::detail {
namespace {

double asDouble(const c10::IValue& v)
{
    return v.isInt() ? static_cast<double>(v.toInt()) : v.isBool() ? v.toBool() : v.toDouble();
}

std::int64_t asInt(const c10::IValue& v)
{
    return v.isBool() ? v.toBool() : v.toInt();
}

bool bothInt(const c10::IValue& a, const c10::IValue& b)
{
    return (a.isInt() || a.isBool()) && (b.isInt() || b.isBool());
}

template <class IntOp, class FloatOp>
void binary(Stack& s, IntOp i, FloatOp f)
{
    const c10::IValue a = s[0];
    const c10::IValue b = s[1];
    s.clear();
    if (a.isTensor() || b.isTensor()) {
        TORCH_CHECK(false, "operator builtins on tensors are not supported");
    }
    if (bothInt(a, b)) {
        s.emplace_back(i(asInt(a), asInt(b)));
    } else {
        s.emplace_back(f(asDouble(a), asDouble(b)));
    }
}

std::int64_t floorDiv(std::int64_t a, std::int64_t b)
{
    TORCH_CHECK(b != 0, "integer division by zero");
    std::int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Transparent functors work on int64 and double alike.
template <class Op>
void arith(Stack& s)
{
    binary(s, Op{}, Op{});
}

void opFloorDiv(Stack& s)
{
    binary(s, floorDiv, [](double a, double b) { return std::floor(a / b); });
}

void opTrueDiv(Stack& s)
{
    auto div = [](double a, double b) { return a / b; };
    binary(s, div, div);
}

void opMod(Stack& s)
{
    binary(s, [](auto a, auto b) { return a - floorDiv(a, b) * b; },
           [](double a, double b) { return a - std::floor(a / b) * b; });
}

void opPow(Stack& s)
{
    auto pow = [](double a, double b) { return std::pow(a, b); };
    binary(s, pow, pow);
}

void opNeg(Stack& s)
{
    const c10::IValue a = s[0];
    s.clear();
    if (a.isInt()) {
        s.emplace_back(-a.toInt());
    } else {
        s.emplace_back(-asDouble(a));
    }
}

struct Builtin {
    StackFn fn;
    int arity;
};

} // namespace

StackFn findOperatorBuiltin(std::string_view name, int& arity)
{
    static const std::map<std::string, Builtin, std::less<>> table = {
        {"add", {arith<std::plus<>>, 2}},
        {"sub", {arith<std::minus<>>, 2}},
        {"mul", {arith<std::multiplies<>>, 2}},
        {"floordiv", {opFloorDiv, 2}},
        {"truediv", {opTrueDiv, 2}},
        {"mod", {opMod, 2}},
        {"pow", {opPow, 2}},
        {"eq", {arith<std::equal_to<>>, 2}},
        {"ne", {arith<std::not_equal_to<>>, 2}},
        {"lt", {arith<std::less<>>, 2}},
        {"le", {arith<std::less_equal<>>, 2}},
        {"gt", {arith<std::greater<>>, 2}},
        {"ge", {arith<std::greater_equal<>>, 2}},
        {"neg", {opNeg, 1}},
    };
    auto it = table.find(name);
    if (it == table.end()) {
        return nullptr;
    }
    arity = it->second.arity;
    return it->second.fn;
}

} // namespace fxs::exec::detail
