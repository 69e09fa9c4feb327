// INTERNAL to core/compile (LibTorch): the CUDA stream LibTorch enqueues on for a device, as the
// driver's handle, so generated kernels run in order with the extern steps and eager runs. A
// LibTorch without CUDA (Debian's) has no CUDA tensors; there the default stream (null) is
// returned, which is also where such a LibTorch would run.
#pragma once

namespace fxs::compile::detail {

void* currentCudaStream(int device);

} // namespace fxs::compile::detail
