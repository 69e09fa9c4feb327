#include "core/graph/tensor_meta.h"

#include "core/util/strings.h"

namespace fxs::graph {

std::string SymInt::toString() const { return isSymbolic() ? expr : std::to_string(value); }

std::string Device::toString() const
{
    return index >= 0 ? type + ":" + std::to_string(index) : type;
}

std::optional<Device> Device::parse(std::string_view text)
{
    text = trim(text);
    if (text.empty()) {
        return std::nullopt;
    }
    Device d;
    const auto colon = text.find(':');
    std::string_view type = text.substr(0, colon);
    for (char c : type) {
        if (!((c >= 'a' && c <= 'z') || c == '_')) {
            return std::nullopt;
        }
    }
    d.type = std::string(type);
    if (colon != std::string_view::npos) {
        const auto idx = parseInt(text.substr(colon + 1));
        if (!idx || *idx < 0) {
            return std::nullopt;
        }
        d.index = static_cast<int>(*idx);
    }
    return d;
}

static void appendDims(std::string& out, const std::vector<SymInt>& dims)
{
    out += '[';
    for (std::size_t i = 0; i < dims.size(); ++i) {
        if (i > 0) {
            out += ", ";
        }
        out += dims[i].toString();
    }
    out += ']';
}

std::string TensorMeta::toString() const
{
    std::string out(dtypeCode(dtype));
    appendDims(out, sizes);
    if (strides) {
        appendDims(out, *strides);
    }
    if (device) {
        out += device->toString();
    }
    return out;
}

bool TensorMeta::hasSymbolicSizes() const
{
    for (const auto& s : sizes) {
        if (s.isSymbolic()) {
            return true;
        }
    }
    return false;
}

std::optional<std::int64_t> TensorMeta::numel() const
{
    std::int64_t n = 1;
    for (const auto& s : sizes) {
        // Sizes from a file may be anything: a negative or overflowing product has no count.
        if (s.isSymbolic() || s.value < 0 || __builtin_mul_overflow(n, s.value, &n)) {
            return std::nullopt;
        }
    }
    return n;
}

std::optional<std::int64_t> TensorMeta::nbytes() const
{
    const auto n = numel();
    if (!n) {
        return std::nullopt;
    }
    std::int64_t bytes = 0;
    if (__builtin_mul_overflow(*n, std::int64_t(dtypeItemSize(dtype)), &bytes)) {
        return std::nullopt;
    }
    return bytes;
}

} // namespace fxs::graph
