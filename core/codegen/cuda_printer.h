// Prints lowered region programs as one CUDA C++ translation unit for NVRTC (no headers: the
// prelude typedefs what it needs) and says how to launch each kernel. Pointwise kernels run a
// grid-stride loop over chunks of elements; row reductions give each row a group of threads
// (warp shuffles within a warp, shared memory across warps) and keep the row in registers when it
// fits; a group of a 16-bit row kernel takes several rows in turn and fetches the next row's
// words while it reduces the current one. Where the accesses allow, a kernel takes chunks of
// several elements and moves them with 128-bit loads and stores when every buffer is 16-byte
// aligned (tested by the kernel itself; element by element otherwise), so one entry serves any
// alignment.
// float16/bfloat16 are stored as such and computed in float, float64 in double. Not the build
// (core/cuda compiles with NVRTC) nor the launch (core/compile): pure text and numbers, no CUDA
// needed.
#pragma once

#include "core/codegen/loop_ir.h"
#include "core/util/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::codegen {

// Launch parameters the printer chooses from (part of the cache key through CudaLaunch::text).
struct CudaTuning {
    // Threads per block of pointwise kernels (a multiple of 32, ≤ 1024): the most; a small
    // index space takes fewer, down to 64, so that its grid has 128 blocks (cuda_printer.cpp).
    int block = 256;
    int unroll = 1;        // chunks each thread of a pointwise kernel takes per grid step
    // Elements of a row each thread of a row reduction aims to hold; twice as many when every
    // value moving along the row is 16-bit (measured on H100: softmax+layer_norm over rows of
    // 1024 bfloat16 runs 1.2x faster with 64 threads a row than with 128).
    int rowElements = 8;
    // Threads per block of row reductions whose rows are short enough to share a block (rows
    // of up to rowBlock / 2 threads); as for `block`, few rows take fewer, down to 64.
    int rowBlock = 128;
    // Large pointwise index spaces of 32-bit elements (a grid of at least 2048 blocks) take
    // blocks of half the threads and two chunks a thread, the same grid (measured on H200:
    // chain8 over 16M/64M float32 4-6 % faster). Applies where unroll is 1; "wide=0" turns
    // it off.
    bool wide = true;
    // "block=256 unroll=1 row_elements=8", then " row_block=N" where rowBlock is not 128 and
    // " wide=0" where wide is off (the default tuning's text, a part of every CUDA key, stays as
    // it was).
    std::string text() const;
    // Reads text() back; fields may be left out (defaults) and separated by spaces or commas.
    // nullopt for an unknown field or a value out of range.
    static std::optional<CudaTuning> parse(std::string_view text);
    // parse() for a value a user gave: Error::Invalid saying what was expected (the default's
    // text as the example) and what was found.
    static Result<CudaTuning> read(std::string_view text);
};

// How the host launches one kernel (x dimensions only; no dynamic shared memory).
struct CudaLaunch {
    std::string kernel;        // entry symbol ("kernel0")
    std::int64_t grid = 0;     // blocks; 0 for an empty index space (nothing to launch)
    int block = 0;             // threads per block
    int vector = 1;            // elements per chunk: 128-bit accesses when the buffers are aligned
    std::string text() const;  // "kernel0 grid=16384 block=256 vector=4"
};

struct CudaSchedule {
    std::string source; // one translation unit for every program
    // NVRTC options the source is meant for: {"--use_fast_math"} when every floating value the
    // kernels store is 16-bit (float16/bfloat16), whose precision (2^-8 .. 2^-11) is far coarser
    // than the hardware approximations' error (exp, sin, division: about 2^-21); else none.
    std::vector<std::string> nvrtcOptions;
    // Per program (in the order given), its kernels' launches in the order they run.
    std::vector<std::vector<CudaLaunch>> launches;
};

// The programs' kernels must have names unique across the programs (as for printSchedule).
// Every kernel takes (inputs..., outputs...) of its program as device pointers, in slot order;
// outputs are contiguous buffers the host allocates (RegionProgram::outputs).
CudaSchedule printCudaSchedule(const std::vector<RegionProgram>& programs,
                               const CudaTuning& tuning = {});

} // namespace fxs::codegen
