#include "core/compile/kernel_call.h"

#include "core/codegen/cpp_printer.h"
#include "core/exec/torch_bridge.h"

#if defined(FXSCOPE_TORCH_CUDA)
#include <ATen/cuda/EmptyTensor.h>
#endif

#include <algorithm>
#include <cmath>

namespace fxs::compile::detail {
namespace {

std::string dims(const at::Tensor& t)
{
    std::string s;
    for (auto d : t.sizes()) {
        s += (s.empty() ? "" : ",") + std::to_string(d);
    }
    return "[" + s + "]";
}

double maxFiniteDiff(const at::Tensor& a, const at::Tensor& b)
{
    const at::Tensor finite = at::isfinite(a) & at::isfinite(b);
    const at::Tensor diff = at::where(finite, (a - b).abs(), at::zeros_like(a));
    return diff.numel() ? diff.max().item<double>() : 0.0;
}

// The largest magnitude among t's finite values (0 when none).
double largestFinite(const at::Tensor& t)
{
    const at::Tensor finiteAbs = at::where(at::isfinite(t), t.abs(), at::zeros_like(t));
    return finiteAbs.numel() ? finiteAbs.max().item<double>() : 0.0;
}

// Half a unit in the last place of `type` at `magnitude`: the least rounding a result of that
// size carries (0 for types without one here).
double halfUlp(at::ScalarType type, double magnitude)
{
    int mantissa = 0;
    switch (type) {
    case at::kFloat: mantissa = 23; break;
    case at::kHalf: mantissa = 10; break;
    case at::kBFloat16: mantissa = 7; break;
    default: return 0.0;
    }
    if (!(magnitude > 0) || !std::isfinite(magnitude)) {
        return 0.0;
    }
    return std::ldexp(1.0, std::ilogb(magnitude) - mantissa - 1);
}

// Judged against the float64 run: the kernel may err by a multiple of what eager itself errs,
// and eager's error counts as at least its type's rounding at the output's largest magnitude
// (where eager happened to round its largest values exactly, a kernel a unit off there — a
// vector exp — would otherwise fail).
void judgeByReference(const at::Tensor& a, const at::Tensor& b, const at::Tensor& reference,
                      at::ScalarType type, std::size_t index, Tolerance tol, Comparison& c)
{
    const at::Tensor r = reference.to(at::kDouble);
    const double eagerErr = std::max(maxFiniteDiff(b, r), halfUlp(type, largestFinite(r)));
    const double compiledErr = maxFiniteDiff(a, r);
    const double bound = kEagerErrorFactor * eagerErr + tol.atol;
    if (compiledErr > bound) {
        c.ok = false;
        c.problem = "output " + std::to_string(index) + ": error against float64 " +
                    std::to_string(compiledErr) + " beyond " +
                    std::to_string(int(kEagerErrorFactor)) + " x eager's " +
                    std::to_string(eagerErr) + " + atol " + std::to_string(tol.atol);
    }
}

Comparison compareOne(const at::Tensor& got, const at::Tensor& want, std::size_t index,
                      Tolerance floor, const at::Tensor* reference)
{
    Comparison c;
    const std::string which = "output " + std::to_string(index);
    if (!got.sizes().equals(want.sizes()) || got.scalar_type() != want.scalar_type()) {
        c.ok = false;
        c.problem = which + ": shape/dtype " + dims(got) + " vs eager " + dims(want);
        return c;
    }
    if (!at::isFloatingType(want.scalar_type())) {
        c.ok = at::equal(got, want);
        c.problem = c.ok ? "" : which + ": values differ (exact type)";
        return c;
    }
    const at::Tensor a = got.to(at::kDouble);
    const at::Tensor b = want.to(at::kDouble);
    if (!at::equal(at::isnan(a), at::isnan(b))) {
        c.ok = false;
        c.problem = which + ": NaN positions differ from eager";
        return c;
    }
    if (!at::equal(at::isposinf(a), at::isposinf(b)) || !at::equal(at::isneginf(a), at::isneginf(b))) {
        c.ok = false;
        c.problem = which + ": infinities differ from eager";
        return c;
    }
    const at::Tensor finite = at::isfinite(b);
    const at::Tensor diff = at::where(finite, (a - b).abs(), at::zeros_like(a));
    c.maxAbsErr = diff.numel() ? diff.max().item<double>() : 0.0;
    Tolerance tol = toleranceFor(exec::fromScalarType(want.scalar_type()));
    tol.rtol = std::max(tol.rtol, floor.rtol);
    tol.atol = std::max(tol.atol, floor.atol);
    // Only where the float64 run is wider than eager: an output the graph itself casts to a
    // narrower type, or one eager makes in float64 already, keeps the rule below.
    if (reference && reference->defined() && reference->sizes().equals(want.sizes()) &&
        reference->scalar_type() == at::kDouble && want.scalar_type() != at::kDouble) {
        judgeByReference(a, b, *reference, want.scalar_type(), index, tol, c);
        return c;
    }
    // Rounding errors scale with the operands, not with each result: where a result cancels to
    // near zero (gelu's derivative crossing zero, times a large gradient) an error relative to
    // it means nothing. atol is therefore relative to the output's largest finite magnitude.
    tol.atol *= std::max(1.0, largestFinite(b));
    const at::Tensor bad = diff > (tol.atol + tol.rtol * b.abs());
    if (bad.any().item<bool>()) {
        c.ok = false;
        c.problem = which + ": max abs error " + std::to_string(c.maxAbsErr) + " beyond rtol " +
                    std::to_string(tol.rtol) + " atol " + std::to_string(tol.atol);
    }
    return c;
}

} // namespace

at::Tensor allocateOutput(const codegen::BufferSpec& spec, const at::TensorOptions& options)
{
#if defined(FXSCOPE_TORCH_CUDA)
    // From LibTorch's CUDA allocator directly, without the dispatcher: CUDA regions allocate
    // every output of every call here.
    if (options.device().is_cuda() && spec.strides.size() == spec.sizes.size()) {
        return at::Tensor(at::detail::empty_strided_cuda(
            spec.sizes, spec.strides, atScalarType(spec.type), options.device()));
    }
#endif
    const auto o = options.dtype(atScalarType(spec.type));
    return spec.strides.size() == spec.sizes.size() ? at::empty_strided(spec.sizes, spec.strides, o)
                                                    : at::empty(spec.sizes, o);
}

at::ScalarType atScalarType(codegen::ScalarType t)
{
    switch (t) {
    case codegen::ScalarType::Bool: return at::kBool;
    case codegen::ScalarType::Int64: return at::kLong;
    case codegen::ScalarType::Float16: return at::kHalf;
    case codegen::ScalarType::BFloat16: return at::kBFloat16;
    case codegen::ScalarType::Float32: return at::kFloat;
    case codegen::ScalarType::Float64: return at::kDouble;
    }
    return at::kFloat;
}

Result<std::vector<at::Tensor>> callRegion(RegionEntry entry, const codegen::RegionProgram& prog,
                                           const std::vector<at::Tensor>& inputs)
{
    std::vector<void*> in;
    std::vector<std::int64_t> dims;
    for (const auto& t : inputs) {
        in.push_back(const_cast<void*>(t.data_ptr()));
        dims.push_back(t.dim());
        dims.insert(dims.end(), t.sizes().begin(), t.sizes().end());
        dims.insert(dims.end(), t.strides().begin(), t.strides().end());
    }
    std::vector<at::Tensor> outs;
    std::vector<void*> out;
    for (const auto& spec : prog.outputs) {
        // The program's layout: contiguous, or the permuted dense one eager gives the value.
        outs.push_back(allocateOutput(spec, at::TensorOptions()));
        out.push_back(outs.back().data_ptr());
    }
    if (entry(in.data(), out.data(), dims.data(), std::int64_t(dims.size())) != 0) {
        return makeError(ErrorCode::Runtime,
                         "the kernel was specialised on other input sizes or strides",
                         prog.region);
    }
    return outs;
}

Comparison compareOutputs(const std::vector<at::Tensor>& got, const std::vector<at::Tensor>& want,
                          const std::vector<at::Tensor>& inputs,
                          const std::vector<at::Tensor>& reference)
{
    Tolerance floor;
    for (const auto& t : inputs) {
        if (at::isFloatingType(t.scalar_type())) {
            const Tolerance in = toleranceFor(exec::fromScalarType(t.scalar_type()));
            floor.rtol = std::max(floor.rtol, in.rtol);
            floor.atol = std::max(floor.atol, in.atol);
        }
    }
    Comparison all;
    if (got.size() != want.size()) {
        all.ok = false;
        all.problem = "output count differs from eager";
        return all;
    }
    for (std::size_t i = 0; i < got.size(); ++i) {
        const Comparison c =
            compareOne(got[i], want[i], i, floor, i < reference.size() ? &reference[i] : nullptr);
        all.maxAbsErr = std::max(all.maxAbsErr, c.maxAbsErr);
        if (!c.ok && all.ok) {
            all.ok = false;
            all.problem = c.problem;
        }
    }
    return all;
}

} // namespace fxs::compile::detail
