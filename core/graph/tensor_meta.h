// What a node's output looks like: dtype, sizes (possibly symbolic: "s0", "2*s1"), strides
// and device, as printed in graph-code annotations ("f32[64, 64][64, 1]cuda:0").
#pragma once

#include "core/graph/dtype.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::graph {

// One dimension or stride: a concrete integer, or a symbolic expression kept as text.
struct SymInt {
    std::int64_t value = 0;
    std::string expr; // non-empty when symbolic

    static SymInt of(std::int64_t v) { return SymInt{v, {}}; }
    static SymInt symbol(std::string e) { return SymInt{0, std::move(e)}; }
    bool isSymbolic() const { return !expr.empty(); }
    std::string toString() const;
    bool operator==(const SymInt&) const = default;
};

struct Device {
    std::string type = "cpu"; // "cpu", "cuda", "meta", ...
    int index = -1;           // -1: no index

    std::string toString() const; // "cuda:0", "cpu"
    // Parses "cuda:0", "cpu", "cuda"; nullopt for anything else.
    static std::optional<Device> parse(std::string_view text);
    bool operator==(const Device&) const = default;
};

struct TensorMeta {
    DType dtype = DType::Unknown;
    std::vector<SymInt> sizes;
    std::optional<std::vector<SymInt>> strides;
    std::optional<Device> device;

    // Printed-graph form: "f32[64, 64][64, 1]cuda:0" (strides and device only when known).
    std::string toString() const;
    std::size_t rank() const { return sizes.size(); }
    bool hasSymbolicSizes() const;
    // Number of elements when every size is concrete.
    std::optional<std::int64_t> numel() const;
    // numel * item size, when concrete.
    std::optional<std::int64_t> nbytes() const;
    bool operator==(const TensorMeta&) const = default;
};

// What a node's annotation string says: a tensor, a symbolic scalar ("Sym(s0)"), or text we
// keep without interpreting (e.g. an unknown future form).
struct ValueMeta {
    enum class Kind : std::uint8_t { None, Tensor, Sym, Other };
    Kind kind = Kind::None;
    TensorMeta tensor; // Kind::Tensor
    std::string text;  // the annotation as printed, for every kind but None

    bool isTensor() const { return kind == Kind::Tensor; }
};

} // namespace fxs::graph
