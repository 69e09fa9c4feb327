// Keeps torch::jit::load away from a TorchScript archive's `*.debug_pkl` entries (the Python
// source ranges behind each line of code/*.py). LibTorch 1.13 indexes their string tables
// without bounds checks when it formats an error message, a segfault on a damaged entry (found
// by fuzz_torchscript), and fxscope shows none of it: errors keep LibTorch's first line, nodes
// point at the printed graph. Not a zip writer: entries are renamed in place, nothing moves.
#pragma once

#include <string>

namespace fxs::torchscript {

// Renames every `*.debug_pkl` entry of the archive to `*.debug_pk_` in its central directory
// and local headers, so LibTorch finds no debug information. Returns how many it renamed.
// Bytes that are not a zip (or a zip64 directory, which only archives past 4 GB or 65,535
// entries have) are left as they are; torch::jit::load then reports them, or loads the debug
// information as before.
int hideDebugInfo(std::string& archive);

} // namespace fxs::torchscript
