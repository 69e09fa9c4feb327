// INTERNAL to core/exec: the ONE table of operators that run as composites of ATen operators,
// for operators the local LibTorch lacks (newer than Debian's 1.13) or has no kernel for on the
// run device (CUDA-only kernels), and the Python `operator` builtins that appear in graphs.
#pragma once

#include "core/exec/execution_plan.h"

#include <string_view>
#include <vector>

namespace fxs::exec::detail {

struct Composite {
    const char* name;     // "aten::_native_batch_norm_legit_functional"
    const char* overload; // "" for .default
    const char* schema;   // the PyTorch 2.11 schema, parsed once
    StackFn fn;
    const char* how;      // one line: what it is computed from
};

// The whole table (for documentation and tests).
const std::vector<Composite>& composites();
const Composite* findComposite(std::string_view name, std::string_view overload);
// The parsed schema of a composite (cached).
const c10::FunctionSchema& compositeSchema(const Composite& c);

// `operator.add`, `operator.mul`, ... on ints/floats (SymInt arithmetic in dynamic graphs);
// nullptr when unknown. `arity` receives the number of arguments.
StackFn findOperatorBuiltin(std::string_view name, int& arity);

} // namespace fxs::exec::detail
