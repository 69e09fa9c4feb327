// INTERNAL to core (torch-linked .cpp files only): reads `torch.save` zip files — from a path
// (`--inputs` files) or from bytes (pickled weights inside `.pt2` archives) — into an IValue,
// working around what LibTorch 1.13's unpickler lacks. Throws LibTorch's exceptions; callers
// turn them into Errors.
#pragma once

#include <ATen/core/ivalue.h>

#include <string>

namespace fxs::exec::detail {

// The pickled object of a torch.save zip file; tensors come back on the CPU.
c10::IValue readTorchSave(const std::string& path);
c10::IValue readTorchSaveBytes(const std::string& bytes);

} // namespace fxs::exec::detail
