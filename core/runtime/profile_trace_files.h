// Which paths are torch.profiler Chrome traces: a file sniffed by its (inflated) head, or the
// files of a directory that sniff as one, beside a TORCH_TRACE log. The one rule for
// `fxscope-cli attribute`/`inspect` and the app's File › Open. Not the reader
// (profile_trace_reader.h).
#pragma once

#include <string>
#include <vector>

namespace fxs::runtime {

// True when path is a regular file whose (inflated) head looks like a Chrome trace.
bool isProfileTrace(const std::string& path);
// The profiler traces a path names: itself, or the files of a directory that sniff as one
// (in the directory listing's order: by name).
std::vector<std::string> profileTracesIn(const std::string& path);

} // namespace fxs::runtime
