// Runs the matrix-product groups of matmul_groups.h as engine steps (exec::Substitute): the
// operands that differ are laid side by side (one cat), multiplied by the shared one in one
// product, and each node's result is its block of that product. Where the shared operand is
// not one tensor at run time (inputs given separately), the nodes' products are made one by
// one, as eager makes them. A side laid out once is kept while the same tensors come back
// unchanged; a CUDA graph captured with the kept copy reads it on every replay, so each
// substitute's beforeReplay joins it again in place when its sources changed since.
#pragma once

#include "core/compile/matmul_groups.h"
#include "core/exec/interpreter.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace fxs::compile {

// The most a group keeps of its operands laid side by side (a copy of its weights).
inline constexpr std::int64_t kMaxKeptBytes = 64ll << 20;

// How often each group ran fused and separately, and how often a fused run reused operands
// kept from an earlier run (shared by the substitutes' copies).
struct MatmulGroupRuns {
    explicit MatmulGroupRuns(std::size_t groups) : fused(groups), separate(groups), kept(groups)
    {
    }
    std::vector<std::atomic<long>> fused;
    std::vector<std::atomic<long>> separate;
    std::vector<std::atomic<long>> kept;
    // The products call cuBLAS directly where they can (exec::RunOptions::directMatmuls).
    bool directMatmuls = false;
};

// One substitute per group, named by the group's id; `runs` (may be null) counts their runs.
std::vector<exec::Substitute> matmulSubstitutes(const graph::Graph& graph,
                                                const std::vector<MatmulGroup>& groups,
                                                std::shared_ptr<MatmulGroupRuns> runs);

} // namespace fxs::compile
