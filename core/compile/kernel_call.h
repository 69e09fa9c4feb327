// INTERNAL to core/compile (LibTorch): calls a loaded region entry on tensors (HostCode: the
// generated steps of a schedule through a shared object's entries) and compares outputs with
// eager ones. Not a public header: it names at::Tensor.
#pragma once

#include "core/codegen/loop_ir.h"
#include "core/compile/compile_types.h"
#include "core/compile/schedule_runner.h"
#include "core/compile/shared_library.h"

#include <ATen/ATen.h>

namespace fxs::compile::detail {

// The ATen type of a kernel buffer's element type.
at::ScalarType atScalarType(codegen::ScalarType t);

// An output buffer of a program (options: its device) with the program's sizes and strides:
// contiguous, or the permuted dense layout eager gives the value (channels_last).
at::Tensor allocateOutput(const codegen::BufferSpec& spec, const at::TensorOptions& options);

// Allocates the outputs (laid out as the program says) and runs the entry once.
Result<std::vector<at::Tensor>> callRegion(RegionEntry entry, const codegen::RegionProgram& prog,
                                           const std::vector<at::Tensor>& inputs);

// The generated steps of a schedule as entries of a loaded shared object (entry i: program i).
class HostCode : public GeneratedCode {
public:
    explicit HostCode(std::shared_ptr<SharedLibrary> lib) : m_lib(std::move(lib)) {}
    Result<std::vector<at::Tensor>> run(int program, const codegen::RegionProgram& prog,
                                        const std::vector<at::Tensor>& inputs) const override
    {
        return callRegion(m_lib->entry(program), prog, inputs);
    }

private:
    std::shared_ptr<SharedLibrary> m_lib;
};

struct Comparison {
    bool ok = true;
    double maxAbsErr = 0;
    std::string problem; // first mismatch, in words
};
// allclose with dtype-aware tolerances over finite values (atol scaled by the output's largest
// finite magnitude when above 1); NaN positions and signed infinities must be equal. The tolerance of an output is the loosest of its own type's and the region's
// floating inputs' (a region fed f16 data is compared at f16 precision even where it writes f32:
// eager rounds every intermediate to f16, the kernel only where it stores).
// With `reference` (the region run eagerly in float64, one tensor per output; an undefined or
// mis-shaped one is skipped), a floating output is judged by eager's own rounding instead: its
// largest error against the float64 result may be at most kEagerErrorFactor times eager's
// largest error against it, plus the type's atol (not scaled by the output's magnitude);
// eager's error counts as at least half a unit in the last place of its type at the output's
// largest magnitude (the rounding every result of that size carries).
constexpr double kEagerErrorFactor = 8.0;
Comparison compareOutputs(const std::vector<at::Tensor>& got, const std::vector<at::Tensor>& want,
                          const std::vector<at::Tensor>& inputs,
                          const std::vector<at::Tensor>& reference = {});

} // namespace fxs::compile::detail
