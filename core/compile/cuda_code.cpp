#include "core/compile/cuda_code.h"

#include "core/compile/cuda_stream.h"
#include "core/compile/kernel_call.h"
#include "core/exec/torch_bridge.h"

#include <c10/util/SmallVector.h>

#include <cstdint>

namespace fxs::compile::detail {
namespace {

Status checkInput(const at::Tensor& t, const codegen::BufferSpec& spec, const std::string& region)
{
    if (!t.is_cuda()) {
        return makeError(ErrorCode::Runtime, "input " + spec.node + " is not on a CUDA device",
                         region);
    }
    if (t.scalar_type() != atScalarType(spec.type) || !t.sizes().equals(spec.sizes) ||
        !t.strides().equals(spec.strides)) {
        return makeError(ErrorCode::Runtime,
                         "the kernels were specialised on other input dtypes, sizes or strides",
                         region);
    }
    return {};
}

} // namespace

Result<std::unique_ptr<CudaCode>> CudaCode::load(int device, std::string_view image,
                                                 const codegen::CudaSchedule& kernels)
{
    auto module = cuda::Module::load(device, image);
    if (!module) {
        return module.error();
    }
    std::unique_ptr<CudaCode> code(new CudaCode());
    code->m_module = std::move(*module);
    for (const auto& program : kernels.launches) {
        code->m_programs.emplace_back();
        for (const auto& l : program) {
            auto k = code->m_module->kernel(l.kernel);
            if (!k) {
                return k.error();
            }
            code->m_programs.back().push_back(Launch{l, *k});
        }
    }
    return code;
}

Result<std::vector<at::Tensor>> CudaCode::run(int program, const codegen::RegionProgram& prog,
                                              const std::vector<at::Tensor>& inputs) const
{
    if (inputs.size() != prog.inputs.size()) {
        return makeError(ErrorCode::Internal, "input count differs from the program", prog.region);
    }
    // Small vectors: a call passes a few pointers, and the host's time per call is what a
    // model without CUDA graphs pays for every region.
    c10::SmallVector<void*, 16> pointers;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        if (Status s = checkInput(inputs[i], prog.inputs[i], prog.region); !s) {
            return s.error();
        }
        pointers.push_back(const_cast<void*>(inputs[i].data_ptr()));
    }
    const auto device = c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(m_module->device()));
    std::vector<at::Tensor> outs;
    outs.reserve(prog.outputs.size());
    for (const auto& spec : prog.outputs) {
        outs.push_back(allocateOutput(spec, at::TensorOptions().device(device)));
        pointers.push_back(outs.back().data_ptr());
    }
    c10::SmallVector<void*, 16> args;
    for (void*& p : pointers) {
        args.push_back(&p);
    }
    void* stream = currentCudaStream(m_module->device());
    for (const Launch& l : m_programs.at(std::size_t(program))) {
        if (l.launch.grid == 0) {
            continue; // an empty index space
        }
        if (Status s = m_module->launch(l.kernel, l.launch.grid, l.launch.block, stream,
                                        args.data());
            !s) {
            return s.error();
        }
    }
    return outs;
}

std::string CudaCode::resources() const
{
    std::string s;
    for (const auto& program : m_programs) {
        for (const auto& l : program) {
            const cuda::KernelAttributes a = m_module->attributes(l.kernel);
            s += (s.empty() ? "" : "; ") + l.launch.kernel + ": " + std::to_string(a.registers) +
                 " registers, " + std::to_string(a.localBytes) + " local bytes";
        }
    }
    return s;
}

} // namespace fxs::compile::detail
