// INTERNAL to core/codegen: which values a reduction kernel keeps in per-row buffers instead
// of recomputing them in later phases (softmax's exp, layer_norm's centred input): the row is
// in L1, a store and a load are cheaper than another transcendental.
#pragma once

#include "core/codegen/loop_ir.h"

#include <set>
#include <vector>

namespace fxs::codegen::detail {

// Loops of a row: reduction phases 0..n-1, then the epilogue (index n).
struct RowCachePlan {
    std::vector<int> loopOf;            // per expression: the loop that computes it first, or -1
    std::set<int> cached;               // stored to a row buffer by loopOf[e]
    std::vector<std::set<int>> reads;   // per loop: cached values read instead of recomputed
    bool enabled = false;
};

// Whether an expression changes along the inner range (depends on a load that moves with c).
std::vector<bool> varyingExprs(const Kernel& k);

// The expressions the roots need (by id), stopping at expressions in `stopAt` (values a loop
// reads from a row buffer instead of recomputing them: they are needed, their operands not).
std::vector<bool> neededExprs(const Kernel& k, const std::vector<int>& roots,
                              const std::set<int>& stopAt);

// Empty (disabled) plan for flat kernels, kernels without reductions, or rows too long to
// buffer on the stack.
RowCachePlan planRowCache(const Kernel& k);

} // namespace fxs::codegen::detail
