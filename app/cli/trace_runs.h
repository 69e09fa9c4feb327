// The TORCH_TRACE runs of the paths a command was given (diagnose, report), and their
// diagnosis: every run of each path, a directory as io::planDirectory plans it. Problems while
// reading are counted as inspect counts them; a run read in part is kept and said on stderr
// ("fxscope-cli CMD: PATH: N problems while reading, first: FILE:LINE: ..."). Not a loader of
// graph files.
#pragma once

#include "core/diagnose/diagnosis.h"
#include "core/model/run.h"
#include "core/util/diagnostics.h"

#include <string>
#include <vector>

namespace fxs::cli {

// False (with the message on stderr) when a path gave nothing. Graphs stay text, parsed on
// demand (io::ensureGraph): the diagnosis compares them as text.
bool readTraceRuns(const std::string& command, const std::vector<std::string>& paths,
                   std::vector<model::Run>& runs, Diagnostics& problems);
// The diagnosis of the runs read, in their order.
Result<diagnose::Diagnosis> diagnoseRuns(const std::vector<model::Run>& runs);

} // namespace fxs::cli
