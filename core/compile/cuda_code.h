// INTERNAL to core/compile (LibTorch): the generated steps of a schedule as CUDA kernels of one
// loaded module (core/cuda), launched on LibTorch's current stream of the tensors' device (each
// kernel picks its vector path itself when the buffers are aligned). Not a public header.
#pragma once

#include "core/codegen/cuda_printer.h"
#include "core/compile/schedule_runner.h"
#include "core/cuda/module.h"

#include <memory>
#include <string_view>
#include <vector>

namespace fxs::compile::detail {

class CudaCode : public GeneratedCode {
public:
    // Loads `image` (cubin or PTX) on `device` and finds every entry the launches name.
    static Result<std::unique_ptr<CudaCode>> load(int device, std::string_view image,
                                                  const codegen::CudaSchedule& kernels);

    // Checks that the inputs are CUDA tensors of the program's dtypes, sizes and strides (the
    // kernels are specialised on them), allocates the outputs and enqueues the kernels.
    Result<std::vector<at::Tensor>> run(int program, const codegen::RegionProgram& prog,
                                        const std::vector<at::Tensor>& inputs) const override;

    int device() const { return m_module->device(); }
    // "kernel0: 32 registers, 0 local bytes; ..." for the outcome's diagnostics.
    std::string resources() const;

private:
    struct Launch {
        codegen::CudaLaunch launch;
        int kernel = -1;
    };
    std::unique_ptr<cuda::Module> m_module;
    std::vector<std::vector<Launch>> m_programs;
};

} // namespace fxs::compile::detail
