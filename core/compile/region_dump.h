// INTERNAL to core/compile: writes what the region compiler made of one region into a
// directory, to look into the code generator (Halide's HL_DEBUG_CODEGEN is the model):
// <id>.schedule.txt (the steps, generated or LibTorch, with their nodes and buffers),
// <id>.ir.txt (the loop IR of each generated step), <id>.cpp (the generated source) and
// <id>.passes.txt (each pass with its time, the state and the reason). Files of a stage the
// region did not reach are not written. Not a cache or a log: the next dump overwrites.
#pragma once

#include "core/compile/prepared_region.h"

#include <string>

namespace fxs::compile::detail {

// Creates dir when missing. Error::Io when a file cannot be written.
Status dumpRegion(const std::string& dir, const PreparedRegion& p, const RegionOutcome& out);

} // namespace fxs::compile::detail
