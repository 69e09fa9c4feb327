// TensorHandle / ValueStore and the dtype bridge between fxscope and ATen.
#include "core/exec/tensor_handle.h"
#include "core/exec/executor.h"
#include "core/exec/torch_bridge.h"

#include <torch/version.h>

#include <new>

namespace fxs::exec {

using graph::DType;

namespace {

static_assert(sizeof(at::Tensor) == sizeof(void*) && alignof(at::Tensor) <= alignof(void*),
              "TensorHandle keeps an at::Tensor in one pointer's room");

at::Tensor& held(unsigned char* room) { return *std::launder(reinterpret_cast<at::Tensor*>(room)); }
const at::Tensor& held(const unsigned char* room)
{
    return *std::launder(reinterpret_cast<const at::Tensor*>(room));
}

} // namespace

TensorHandle::TensorHandle() { new (m_tensor) at::Tensor(); }
TensorHandle::~TensorHandle() { held(m_tensor).~Tensor(); }
TensorHandle::TensorHandle(const TensorHandle& o) { new (m_tensor) at::Tensor(held(o.m_tensor)); }
TensorHandle& TensorHandle::operator=(const TensorHandle& o)
{
    held(m_tensor) = held(o.m_tensor);
    return *this;
}
TensorHandle::TensorHandle(TensorHandle&& o) noexcept
{
    new (m_tensor) at::Tensor(std::move(held(o.m_tensor)));
}
TensorHandle& TensorHandle::operator=(TensorHandle&& o) noexcept
{
    held(m_tensor) = std::move(held(o.m_tensor));
    return *this;
}

TensorHandle makeHandle(at::Tensor t)
{
    TensorHandle h;
    held(h.m_tensor) = std::move(t);
    return h;
}

const at::Tensor& tensorOf(const TensorHandle& h) { return held(h.m_tensor); }

bool TensorHandle::defined() const { return held(m_tensor).defined(); }
void* TensorHandle::data() const { return defined() ? held(m_tensor).data_ptr() : nullptr; }
std::vector<std::int64_t> TensorHandle::sizes() const
{
    return defined() ? held(m_tensor).sizes().vec() : std::vector<std::int64_t>{};
}
std::vector<std::int64_t> TensorHandle::strides() const
{
    return defined() ? held(m_tensor).strides().vec() : std::vector<std::int64_t>{};
}
DType TensorHandle::dtype() const
{
    return defined() ? fromScalarType(held(m_tensor).scalar_type()) : DType::Unknown;
}
std::string TensorHandle::device() const
{
    return defined() ? held(m_tensor).device().str() : "";
}
bool TensorHandle::isCuda() const { return defined() && held(m_tensor).is_cuda(); }
std::int64_t TensorHandle::numel() const { return defined() ? held(m_tensor).numel() : 0; }

std::vector<double> TensorHandle::toDoubles() const
{
    if (!defined() || held(m_tensor).is_complex()) {
        return {};
    }
    at::Tensor t = held(m_tensor).detach().to(at::kCPU).to(at::kDouble).contiguous();
    const double* p = t.data_ptr<double>();
    return std::vector<double>(p, p + t.numel());
}

const TensorHandle* ValueStore::find(const std::string& name) const
{
    auto it = m_values.find(name);
    return it == m_values.end() ? nullptr : &it->second;
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
