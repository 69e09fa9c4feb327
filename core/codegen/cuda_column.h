// INTERNAL to core/codegen: the CUDA printer's column-reduction kernels (loop_ir.h:
// Kernel::columns). A block is TX consecutive columns (consecutive threads, coalesced loads) by
// TY rows of threads; each thread runs down its column over its slice of the rows, folding the
// reductions and storing the outputs that move along the rows; the TY partials meet in shared
// memory. When the columns give too few blocks to fill the GPU, the rows are split over S blocks
// too: each block writes its partial to a scratch array of the module (__device__), and the
// last block of a column tile to arrive (an atomic counter) combines the S partials in split
// order, so the result does not depend on the blocks' timing (deterministic; no float
// atomics), resets the counter and stores the results. One launch; the scratch belongs to the
// module, so two launches of one kernel must not run at the same time (one stream does that).
// Rows that would be split but fit one block of up to 1024 threads (4 rows a thread) are not
// split: that block takes them all, its partials halved in a tree before the last 8 rows of
// threads are combined in order (the split's combine costs more than it saves there), its
// tiles narrowed down to 8 columns for more blocks.
#pragma once

#include "core/codegen/cuda_printer.h"
#include "core/codegen/expr_table.h"
#include "core/codegen/loop_ir.h"

#include <cstdint>
#include <string>

namespace fxs::codegen::detail {

struct ColumnPlan {
    int tx = 32;               // columns a block (threads along the columns)
    int ty = 8;                // threads along the rows
    std::int64_t tiles = 1;    // blocks along the columns
    std::int64_t splits = 1;   // blocks along the rows of each tile
    std::int64_t rowsPerSplit = 0;
};

// The plan for a column kernel run in blocks of `block` threads (a power of two ≥ 32).
ColumnPlan planColumns(const Kernel& k, int block);

// The kernel's device code and entry; `params` is the entry's parameter list (inputs, outputs).
// Fills the launch and adds the math calls the expressions make.
std::string printCudaColumnKernel(const Kernel& k, const std::string& params,
                                  const CudaTuning& tuning, CudaLaunch& launch, MathCalls& calls);

} // namespace fxs::codegen::detail
