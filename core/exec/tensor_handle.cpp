// TensorHandle / ValueStore and the dtype bridge between fxscope and ATen.
#include "core/exec/tensor_handle.h"
#include "core/exec/executor.h"
#include "core/exec/torch_bridge.h"

#include <torch/version.h>

namespace fxs::exec {

using graph::DType;

TensorHandle::TensorHandle() = default;
TensorHandle::~TensorHandle() = default;
TensorHandle::TensorHandle(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
TensorHandle::TensorHandle(const TensorHandle& o)
    : m_impl(o.m_impl ? std::make_unique<Impl>(*o.m_impl) : nullptr)
{
}
TensorHandle& TensorHandle::operator=(const TensorHandle& o)
{
    if (this != &o) {
        m_impl = o.m_impl ? std::make_unique<Impl>(*o.m_impl) : nullptr;
    }
    return *this;
}
TensorHandle::TensorHandle(TensorHandle&&) noexcept = default;
TensorHandle& TensorHandle::operator=(TensorHandle&&) noexcept = default;

bool TensorHandle::defined() const { return m_impl && m_impl->tensor.defined(); }
void* TensorHandle::data() const { return defined() ? m_impl->tensor.data_ptr() : nullptr; }
std::vector<std::int64_t> TensorHandle::sizes() const
{
    return defined() ? m_impl->tensor.sizes().vec() : std::vector<std::int64_t>{};
}
std::vector<std::int64_t> TensorHandle::strides() const
{
    return defined() ? m_impl->tensor.strides().vec() : std::vector<std::int64_t>{};
}
DType TensorHandle::dtype() const
{
    return defined() ? fromScalarType(m_impl->tensor.scalar_type()) : DType::Unknown;
}
std::string TensorHandle::device() const { return defined() ? m_impl->tensor.device().str() : ""; }
bool TensorHandle::isCuda() const { return defined() && m_impl->tensor.is_cuda(); }
std::int64_t TensorHandle::numel() const { return defined() ? m_impl->tensor.numel() : 0; }

std::vector<double> TensorHandle::toDoubles() const
{
    if (!defined() || m_impl->tensor.is_complex()) {
        return {};
    }
    at::Tensor t = m_impl->tensor.detach().to(at::kCPU).to(at::kDouble).contiguous();
    const double* p = t.data_ptr<double>();
    return std::vector<double>(p, p + t.numel());
}

const TensorHandle* ValueStore::find(const std::string& name) const
{
    auto it = m_values.find(name);
    return it == m_values.end() ? nullptr : &it->second;
}

const at::Tensor& tensorOf(const TensorHandle& h)
{
    static const at::Tensor undefined;
    return h.impl() ? h.impl()->tensor : undefined;
}

namespace {
struct DTypePair {
    DType ours;
    at::ScalarType theirs;
};
const DTypePair kPairs[] = {
    {DType::Bool, at::kBool},          {DType::UInt8, at::kByte},
    {DType::Int8, at::kChar},          {DType::Int16, at::kShort},
    {DType::Int32, at::kInt},          {DType::Int64, at::kLong},
    {DType::Float16, at::kHalf},       {DType::BFloat16, at::kBFloat16},
    {DType::Float32, at::kFloat},      {DType::Float64, at::kDouble},
    {DType::Complex32, at::kComplexHalf}, {DType::Complex64, at::kComplexFloat},
    {DType::Complex128, at::kComplexDouble},
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
    {DType::Float8E4M3FN, at::ScalarType::Float8_e4m3fn},
    {DType::Float8E5M2, at::ScalarType::Float8_e5m2},
#endif
};
} // namespace

std::optional<at::ScalarType> toScalarType(DType t)
{
    for (const auto& p : kPairs) {
        if (p.ours == t) {
            return p.theirs;
        }
    }
    return std::nullopt;
}

DType fromScalarType(at::ScalarType t)
{
    for (const auto& p : kPairs) {
        if (p.theirs == t) {
            return p.ours;
        }
    }
    return DType::Unknown;
}

namespace detail {

std::string torchMessage(const std::exception& e)
{
    if (const auto* c10e = dynamic_cast<const c10::Error*>(&e)) {
        return c10e->what_without_backtrace();
    }
    return e.what();
}

} // namespace detail

} // namespace fxs::exec
