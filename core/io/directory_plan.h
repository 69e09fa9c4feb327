// How a directory of TORCH_TRACE logs is read: which files, with which rank, as how many runs.
// The one rule the CLI (every command) and the app follow; the readers only carry it out. Not
// for reading the files (torch_trace_reader does that) nor for single files.
//
// The rule, tlparse's where tlparse has one:
// - A file named `dedicated_log_torch_trace_rank_N[_suffix].log[.gz]` is rank N's log. When the
//   directory holds such files it is one distributed run of those files; every other file is
//   ignored with a note. Records without a rank (those logged before init_process_group) take
//   their file's rank; an envelope rank that disagrees is a warning naming both (the name wins).
//   Two files that claim one rank are both read, with a warning.
// - Without rank names, the files that look like TORCH_TRACE logs are one run when there is one,
//   and one run each (separate processes: a cold run, then a warm one) when there are several;
//   the reader makes them one run again when each log's envelopes name one rank, a different
//   one per log (logs opened before init_process_group), as tlparse's ranks would be.
// - Empty files are skipped with a note, never an error.
#pragma once

#include "core/util/diagnostics.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::io {

struct PlannedFile {
    std::string path;
    int rank = -1; // from the file name; -1 when the name carries none (envelope ranks apply)
};

struct PlannedRun {
    std::string path; // what the run is named after: the directory, or its one file
    std::vector<PlannedFile> files;
};

struct DirectoryPlan {
    std::vector<PlannedRun> runs; // empty when the directory holds no log to read
    Diagnostics notes;            // files ignored and why; an unreadable directory is an error
};

// Plans the reading of dir (not recursive). Reads only the first bytes of unranked files (to
// tell a log from other files). Never throws.
DirectoryPlan planDirectory(const std::string& dir);

// N of a `dedicated_log_torch_trace_rank_N[_suffix].log[.gz]` file name (no directory part);
// nullopt for any other name.
std::optional<int> rankFromFileName(std::string_view name);

} // namespace fxs::io
