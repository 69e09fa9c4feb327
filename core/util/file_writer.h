// The one way fxscope writes output files (projects, profiles, plans, traces, SVGs, dumps):
// only to a regular file or a new one. An existing FIFO, socket, device or directory is
// refused at once by name, in the file reader's words ("not a regular file: it is a named
// pipe (FIFO)"), and nothing is ever opened in a way that could block. The data goes to a
// temporary file in the same folder, renamed over the target when complete, so a reader never
// sees half a file. Not for appending or streaming. Never throws.
#pragma once

#include "core/util/result.h"

#include <string>
#include <string_view>

namespace fxs {

// Success when path may be written: it does not exist (its folder is not checked here) or it
// is a regular file (a symbolic link counts as what it names). Errors (where = path): Io naming
// what the path is.
Status checkWritableTarget(const std::string& path);

// Writes data to path (a symbolic link to a regular file: to the file it names, keeping the
// link). An existing file keeps its permissions; a new one gets 0666 less the umask. Errors
// (where = path): Io when the target is not a regular file (checkWritableTarget) or cannot be
// written (the system's reason). When the folder does not let us create the temporary file,
// an existing regular file is overwritten in place instead.
Status writeFile(const std::string& path, std::string_view data);

} // namespace fxs
