// Output summaries (see summaries.h). Statistics are computed in float64 on the CPU.
#include "core/exec/summaries.h"
#include "core/exec/torch_bridge.h"

#include <ATen/ATen.h>

#include <sstream>

namespace fxs::exec::detail {
namespace {

std::string valueText(const c10::IValue& v)
{
    if (v.isNone()) {
        return "None";
    }
    std::ostringstream os;
    os << v;
    return os.str();
}

void tensorStats(const at::Tensor& t, OutputSummary& s)
{
    if (t.numel() == 0 || t.is_complex()) {
        return;
    }
    at::Tensor d = t.detach().to(at::kCPU).to(at::kDouble);
    if (t.is_floating_point()) {
        s.nan = d.isnan().sum().item<std::int64_t>();
        s.inf = d.isinf().sum().item<std::int64_t>();
        d = d.masked_select(d.isfinite());
    }
    if (d.numel() == 0) {
        return;
    }
    s.min = d.min().item<double>();
    s.max = d.max().item<double>();
    s.mean = d.mean().item<double>();
}

} // namespace

OutputSummary summarize(const c10::IValue& value, std::string name)
{
    OutputSummary s;
    s.name = std::move(name);
    if (!value.isTensor() || !value.toTensor().defined()) {
        s.value = value.isTensor() ? "None" : valueText(value);
        return s;
    }
    const at::Tensor& t = value.toTensor();
    s.isTensor = true;
    s.shape = t.sizes().vec();
    s.dtype = std::string(graph::dtypeTorchName(fromScalarType(t.scalar_type())));
    tensorStats(t, s);
    return s;
}

} // namespace fxs::exec::detail
