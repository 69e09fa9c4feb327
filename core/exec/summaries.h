// INTERNAL to core/exec: what a value looks like, for reports: shape, dtype, min/max/mean of
// the finite values, NaN and Inf counts; non-tensor values as text.
#pragma once

#include "core/exec/interpreter.h"

#include <ATen/core/ivalue.h>

namespace fxs::exec::detail {

OutputSummary summarize(const c10::IValue& value, std::string name);

} // namespace fxs::exec::detail
