#include "core/compile/cuda_stream.h"

#if defined(FXSCOPE_TORCH_CUDA)
#include <c10/cuda/CUDAStream.h>
#endif

namespace fxs::compile::detail {

void* currentCudaStream(int device)
{
#if defined(FXSCOPE_TORCH_CUDA)
    return static_cast<void*>(
        c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device)).stream());
#else
    (void)device;
    return nullptr;
#endif
}

} // namespace fxs::compile::detail
