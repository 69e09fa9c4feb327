// The TORCH_TRACE runs of the paths a command was given (diagnose, report): every run of each
// path, a directory as io::planDirectory plans it. Problems while reading are counted as inspect
// counts them; a run read in part is kept and said on stderr ("fxscope-cli CMD: PATH: N
// problems while reading, first: FILE:LINE: ..."). Not a loader of graph files.
#pragma once

#include "core/model/run.h"
#include "core/util/diagnostics.h"

#include <string>
#include <vector>

namespace fxs::cli {

// False (with the message on stderr) when a path gave nothing. parseGraphs: build each graph's
// IR too (drawing), else graphs stay text (diagnosis compares them as text).
bool readTraceRuns(const std::string& command, const std::vector<std::string>& paths,
                   bool parseGraphs, std::vector<model::Run>& runs, Diagnostics& problems);

} // namespace fxs::cli
