// Prints a lowered region as one self-contained C++ translation unit: no torch headers, OpenMP
// over rows, unit-stride `omp simd` inner loops, transcendentals through glibc's vector math
// (libmvec, declared with `simd` so g++ calls e.g. _ZGVeN16v_expf). Each kernel's comment names
// the FX nodes it covers by canonical position; no input text (node names, region id) reaches
// the source (source_text.h). Not the build step (core/compile runs the compiler).
#pragma once

#include "core/codegen/loop_ir.h"

#include <string>
#include <string_view>
#include <vector>

namespace fxs::codegen {

// extern "C" int fxs_region_entry(void* const* inputs, void* const* outputs,
//                                 const int64_t* dims, int64_t ndims);
// dims: for each input, its rank, sizes and strides; the kernel is specialised on them and
// returns 1 without touching memory when they differ, 0 after running.
inline constexpr std::string_view kEntrySymbol = "fxs_region_entry";

std::string printRegion(const RegionProgram& program);

// One translation unit for several programs (the generated steps of a region whose schedule
// interleaves them with LibTorch calls): program i gets the entry entrySymbol(i), with the
// contract above, and its kernels must have names unique across the programs.
// printSchedule({p}) == printRegion(p).
std::string printSchedule(const std::vector<RegionProgram>& programs);
std::string entrySymbol(int index); // "fxs_region_entry", "fxs_region_entry_1", ...

// The dims array the entry expects for these inputs (rank, sizes, strides per input).
std::vector<std::int64_t> entryDims(const std::vector<BufferSpec>& inputs);

} // namespace fxs::codegen
