// INTERNAL to core/codegen: the one table of what each loop-IR primitive computes, as text
// templates shared by the C++ printer and the CUDA printer, and the index arithmetic of strided
// accesses both print. The few spellings that differ between the two languages (compiler
// builtins, infinities, half-precision rounding) are `$name` tokens that each printer's Dialect
// spells. Not a printer: kernels, loops and entries are theirs.
#pragma once

#include "core/codegen/loop_ir.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::codegen::detail {

// Spelling of the `$name` tokens of the table, float and double forms ("$fabsf" ->
// "__builtin_fabsf" for C++, "fabsf" for CUDA; "$fabs" -> "__builtin_fabs", "fabs"). Every token
// the table uses must be present.
struct Dialect {
    std::map<std::string_view, std::string_view> spell;
};

// The tokens the table uses, for printers that build a Dialect and for its tests.
const std::vector<std::string_view>& dialectTokens();

// A math library function a kernel calls: its double name ("exp") and the precision it is
// called in (Float: "expf").
using MathCall = std::pair<std::string, ComputeType>;
using MathCalls = std::set<MathCall>;

// "float", "double", "int64_t", "bool" (both languages: the CUDA prelude typedefs int64_t).
const char* computeName(ComputeType t);
// "[2, 3]": an index space's shape in a kernel's opening comment.
std::string shapeText(const std::vector<std::int64_t>& v);

// A constant of type t ("(0.5f)", "(0.5)", "INT64_C(3)", "true", the dialect's infinity/NaN).
// A float constant is the float nearest v (inf beyond its range); an int64 one saturates and NaN
// is 0 (source_text.h), so any double prints as a valid literal.
std::string constText(double v, ComputeType t, const Dialect& d);
// The dialect's positive infinity and quiet NaN of a floating type.
std::string infinityText(ComputeType t, const Dialect& d);
std::string nanText(ComputeType t, const Dialect& d);

// The comment line that opens a kernel: its name, and the nodes it covers as canonical
// positions ("v3, v4") or, when the scheduler set none, their number. No input text.
std::string kernelComment(const Kernel& k);

// Text of an Op expression of kernel k over its operands' texts; floating ops compute in their
// own precision (float or double). Calls of math library functions it makes ("expf", "erf") are
// added to `calls` (the C++ printer declares them as libmvec SIMD functions). nullopt for a
// primitive the table does not know.
std::optional<std::string> opText(const Kernel& k, const Expr& e,
                                  const std::vector<std::string>& args, const Dialect& d,
                                  MathCalls& calls);

// The name a call is spelt with ("expf", "exp") and its number of arguments (pow, atan2: 2).
std::string mathCallName(const MathCall& call);
int mathCallArity(const MathCall& call);

// Index arithmetic of an access, in the row index `r` and the inner index `c`.
// Row base: the offset plus, per outer dim, the row's digit in it times the stride (flat
// kernels: the offset alone).
std::string rowBaseText(const Kernel& k, const Access& a);
// "" when the access does not move along the inner range, "c" when it is contiguous in it (flat
// kernels: whenever it is not a broadcast), else the strided index term in c.
std::string innerIndexText(const Kernel& k, const Access& a);
// The element's index along dim d of F: from the row index `r` (outer dims) or the inner index
// `c` (inner dims); flat kernels from `flat`, the printer's text of the flat element index.
std::string indexDigitText(const Kernel& k, int d, const std::string& flat);
// The condition that an access's guards hold ("" when it has none or they always hold).
std::string guardText(const Kernel& k, const Access& a, const std::string& flat);
// A guarded load's value: `value` where its guards hold, else its fill (Access::fill) in its
// compute type.
std::string guardedLoadText(const Kernel& k, const Load& l, const std::string& value,
                            const std::string& flat, const Dialect& d);

} // namespace fxs::codegen::detail
