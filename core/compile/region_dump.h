// INTERNAL to core/compile: writes what the region compiler made of one region into a
// directory, to look into the code generator (Halide's HL_DEBUG_CODEGEN is the model):
// <stem>.schedule.txt (the steps, generated or LibTorch, with their nodes and buffers),
// <stem>.ir.txt (the loop IR of each generated step), <stem>.cpp (the generated source) and
// <stem>.passes.txt (each pass with its time, the state and the reason), <stem> from the region
// id by dumpStem. Files of a stage the region did not reach are not written. Not a cache or a
// log: the next dump overwrites.
#pragma once

#include "core/compile/prepared_region.h"

#include <string>
#include <string_view>

namespace fxs::compile::detail {

// The file name stem of a region's dump: the id itself when it is 1..64 characters of
// [A-Za-z0-9_.-] not starting with '.' or '-'; else its characters with every other byte as '_'
// (at most 40, a leading '.' or '-' as '_'), '-' and 12 hex digits of the id's SHA-256. Never
// empty, ".", "..", a hidden name or one with a slash: a dump stays inside its directory.
std::string dumpStem(std::string_view regionId);

// Creates dir when missing. Each file is written to a new temporary name in dir (created
// exclusively, no symlink followed) and renamed over <stem>.<ext>, so a symlink, FIFO or hard
// link already there is replaced, never written through. Error::Io when a file cannot be written.
Status dumpRegion(const std::string& dir, const PreparedRegion& p, const RegionOutcome& out);

} // namespace fxs::compile::detail
