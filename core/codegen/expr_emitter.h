// INTERNAL to core/codegen: the walk over a kernel's expressions that the C++ and the CUDA
// printers share. For one loop of a row (a reduction phase or the epilogue) it writes the
// expressions the loop's roots need, in id order, as `const <type> t<id> = <text>;`, stopping at
// values an earlier loop left in a row buffer (row_cache.h) and writing the ones a later loop
// reads; the text of constants, reduction results and ops comes from the expression table
// (expr_table.h) in the printer's dialect. Also the pieces both languages spell alike: a
// reduction's identity and the 16-bit load and store conversions (each printer's prelude
// defines fxs_bf16_load/store and fxs_f16_load/store). A printer supplies only how a load is
// indexed and where its row buffers live. No input text reaches what it writes.
#pragma once

#include "core/codegen/expr_table.h"
#include "core/codegen/loop_ir.h"
#include "core/codegen/row_cache.h"

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace fxs::codegen::detail {

class ExprEmitter {
public:
    // The value of load `index` as the printer reads it (an indexed buffer, a register).
    using LoadText = std::function<std::string(int index)>;

    // cache: the kernel's row-cache plan (disabled: every loop recomputes what it needs).
    // flat: the printer's text of the flat element index in flat kernels (Index expressions
    // and load guards; other kernels use the row index r and the inner index c).
    ExprEmitter(const Kernel& k, const Dialect& d, RowCachePlan cache,
                std::string flat = "c");

    const std::string& flatIndex() const { return m_flat; }

    const RowCachePlan& cache() const { return m_cache; }
    // Math library functions the expressions written so far call.
    const MathCalls& calls() const { return m_calls; }
    MathCalls& calls() { return m_calls; }

    // Values an earlier loop left in row buffers, read by `loop` (-1: none, scalar code).
    const std::set<int>& reads(int loop) const;
    // The expressions the roots need in `loop` (by id), row-buffer reads not expanded.
    std::vector<bool> needed(const std::vector<int>& roots, int loop) const;
    // The statements computing the roots in `loop`: `rc<id>[slot]` is the row buffer element.
    std::string statements(const std::vector<int>& roots, int loop, const std::string& slot,
                           const std::string& indent, const LoadText& load);
    // The text of one expression (operands as t<id>).
    std::string text(const Expr& e, const LoadText& load);

private:
    const Kernel& m_k;
    const Dialect& m_d;
    RowCachePlan m_cache;
    std::string m_flat;
    MathCalls m_calls;
};

// The value a reduction starts from: 0 of its type for a sum, the far end of its type's range
// (infinity for floating types) for max and min.
std::string reductionIdentity(const Reduction& r, const Dialect& d);

// A value read from storage of type t as its compute type, and a computed value as storage
// (the 16-bit types through the preludes' conversion functions; others as they are).
std::string loadValue(ScalarType t, const std::string& raw);
std::string storeValue(ScalarType t, const std::string& value);

} // namespace fxs::codegen::detail
