// Tensor element types as PyTorch names them, with the short codes of printed graph code
// ("f32", "b8") and the torch names ("torch.float32"). Persisted by name, never by number.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace fxs::graph {

enum class DType : std::uint8_t {
    Unknown,
    Bool,
    UInt8,
    Int8,
    Int16,
    Int32,
    Int64,
    Float16,
    BFloat16,
    Float32,
    Float64,
    Complex32,
    Complex64,
    Complex128,
    Float8E4M3FN,
    Float8E5M2,
    Float8E4M3FNUZ,
    Float8E5M2FNUZ,
};

// "f32", "b8", "bf16", "i64", "c64", "f8e4m3fn", ...
std::optional<DType> dtypeFromCode(std::string_view code);
// "float32", "torch.float32", "float", "long", "bool", ...
std::optional<DType> dtypeFromTorchName(std::string_view name);
std::string_view dtypeCode(DType t);      // "f32"
std::string_view dtypeTorchName(DType t); // "float32" (without "torch.")
int dtypeItemSize(DType t);               // bytes per element; 0 for Unknown
bool isFloatingPoint(DType t);
bool isComplex(DType t);
bool isIntegral(DType t, bool includeBool);

} // namespace fxs::graph
