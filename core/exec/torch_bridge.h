// INTERNAL to core: the torch-facing side of TensorHandle and dtype mapping, for other core
// .cpp files (exec, compile, torchscript) that link LibTorch. Never include it from a public
// header, from the CLI or from anything Qt-facing.
#pragma once

#include "core/exec/tensor_handle.h"

#include <ATen/ATen.h>

#include <optional>

namespace fxs::exec {

// A handle sharing `t` (no copy of its elements).
TensorHandle makeHandle(at::Tensor t);
// The tensor behind a handle; an undefined tensor for an undefined handle.
const at::Tensor& tensorOf(const TensorHandle& h);

// Mapping between fxscope dtypes and ATen scalar types; nullopt where one side lacks the type
// (e.g. float8 in LibTorch 1.13).
std::optional<at::ScalarType> toScalarType(graph::DType t);
graph::DType fromScalarType(at::ScalarType t);

} // namespace fxs::exec
