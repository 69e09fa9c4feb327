#include "core/graph/dtype.h"

#include <array>

namespace fxs::graph {

namespace {

struct DTypeInfo {
    DType type;
    std::string_view code;
    std::string_view torchName;
    int itemSize;
};

constexpr std::array<DTypeInfo, 17> kInfos{{
    {DType::Bool, "b8", "bool", 1},
    {DType::UInt8, "u8", "uint8", 1},
    {DType::Int8, "i8", "int8", 1},
    {DType::Int16, "i16", "int16", 2},
    {DType::Int32, "i32", "int32", 4},
    {DType::Int64, "i64", "int64", 8},
    {DType::Float16, "f16", "float16", 2},
    {DType::BFloat16, "bf16", "bfloat16", 2},
    {DType::Float32, "f32", "float32", 4},
    {DType::Float64, "f64", "float64", 8},
    {DType::Complex32, "c32", "complex32", 4},
    {DType::Complex64, "c64", "complex64", 8},
    {DType::Complex128, "c128", "complex128", 16},
    {DType::Float8E4M3FN, "f8e4m3fn", "float8_e4m3fn", 1},
    {DType::Float8E5M2, "f8e5m2", "float8_e5m2", 1},
    {DType::Float8E4M3FNUZ, "f8e4m3fnuz", "float8_e4m3fnuz", 1},
    {DType::Float8E5M2FNUZ, "f8e5m2fnuz", "float8_e5m2fnuz", 1},
}};

const DTypeInfo* infoOf(DType t)
{
    for (const auto& i : kInfos) {
        if (i.type == t) {
            return &i;
        }
    }
    return nullptr;
}

} // namespace

std::optional<DType> dtypeFromCode(std::string_view code)
{
    for (const auto& i : kInfos) {
        if (i.code == code) {
            return i.type;
        }
    }
    return std::nullopt;
}

std::optional<DType> dtypeFromTorchName(std::string_view name)
{
    if (name.substr(0, 6) == "torch.") {
        name.remove_prefix(6);
    }
    for (const auto& i : kInfos) {
        if (i.torchName == name) {
            return i.type;
        }
    }
    // Aliases PyTorch accepts.
    struct Alias {
        std::string_view name;
        DType type;
    };
    static constexpr Alias kAliases[] = {
        {"float", DType::Float32}, {"double", DType::Float64}, {"half", DType::Float16},
        {"long", DType::Int64},    {"int", DType::Int32},      {"short", DType::Int16},
        {"cfloat", DType::Complex64}, {"cdouble", DType::Complex128},
    };
    for (const auto& a : kAliases) {
        if (a.name == name) {
            return a.type;
        }
    }
    return std::nullopt;
}

std::string_view dtypeCode(DType t)
{
    const auto* i = infoOf(t);
    return i ? i->code : std::string_view("?");
}

std::string_view dtypeTorchName(DType t)
{
    const auto* i = infoOf(t);
    return i ? i->torchName : std::string_view("unknown");
}

int dtypeItemSize(DType t)
{
    const auto* i = infoOf(t);
    return i ? i->itemSize : 0;
}

bool isFloatingPoint(DType t)
{
    switch (t) {
    case DType::Float16:
    case DType::BFloat16:
    case DType::Float32:
    case DType::Float64:
    case DType::Float8E4M3FN:
    case DType::Float8E5M2:
    case DType::Float8E4M3FNUZ:
    case DType::Float8E5M2FNUZ:
        return true;
    default:
        return false;
    }
}

bool isComplex(DType t)
{
    return t == DType::Complex32 || t == DType::Complex64 || t == DType::Complex128;
}

bool isIntegral(DType t, bool includeBool)
{
    switch (t) {
    case DType::UInt8:
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
    case DType::Int64:
        return true;
    case DType::Bool:
        return includeBool;
    default:
        return false;
    }
}

} // namespace fxs::graph
