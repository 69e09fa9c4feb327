// INTERNAL to core (exec, and compile's region schedules): view operators made as aliases
// without LibTorch's dispatcher (RunOptions::directViews). direct_views.cpp.
#pragma once

#include "core/exec/execution_plan.h"

#include <string_view>

namespace fxs::exec::detail {

// Every step calling a view operator with a direct form (t, transpose.int, permute, view,
// _unsafe_view, unsqueeze, squeeze.dim, expand, slice.Tensor, select.int, detach, alias) runs
// it directly: the same sizes, strides, storage offset and storage as the operator's result.
// Cases without a direct form (errors, tensors that are not plain strided ones) and runs
// outside InferenceMode call the operator.
void runViewsDirectly(Plan& plan);

// The direct form alone of the operator `name`.`overload` ("aten::slice", "Tensor"; "" for
// .default) on a boxed stack (the operator's arguments in schema order): Made leaves the
// result on the stack; Declined leaves the stack alone (the operator would be called); errors
// LibTorch's helpers raise are thrown. For tests, which hold it to the operator's own results.
enum class DirectView { Made, Declined, NoDirectForm };
DirectView makeViewDirectly(std::string_view name, std::string_view overload, Stack& stack);

} // namespace fxs::exec::detail
