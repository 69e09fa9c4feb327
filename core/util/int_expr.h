// The one evaluator of integer size expressions ("s0", "2*s1 + 1", "(s0 - 1)//2 + 1",
// "s0**2 % 8") as graph code, .pt2 programs and --size give them: Python's integer rules
// (// floors, % takes the divisor's sign; / rounds the same way as //), every operation checked
// (overflow, division by zero, INT64_MIN // -1 are errors, never a trap), literals outside
// int64 refused by name, nesting capped at kMaxNesting. Not sympy: no functions, no floats.
#pragma once

#include "core/util/result.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace fxs {

// The value of a symbol, nullopt when it has none.
using IntSymbolLookup = std::function<std::optional<std::int64_t>(std::string_view)>;

// Errors (code Invalid, found = the expression, cut after 160 characters): "integer literal
// 9999...9 out of range (int64)", "size expression overflows int64 at `a * b`", "division by zero at `a // 0`",
// "size expression nested deeper than 200 levels", "no value for symbolic size 's0' (give
// --size s0=N)", "unexpected text", "missing ')'". Callers add where (file:line or node).
Result<std::int64_t> evalIntExpr(std::string_view expr, const IntSymbolLookup& lookup);

// A whole integer literal (decimal, optional sign, surrounding spaces allowed) with a clear
// error: "integer literal 99999999999999999999 out of range (int64)", "not an integer".
Result<std::int64_t> parseIntLiteral(std::string_view text);

} // namespace fxs
