// Runs an external program (the host C++ compiler) as a child process with a timeout and its
// stdout+stderr captured. posix_spawn, no shell: arguments are passed as given. Not a general
// process library (no stdin, no environment changes).
#pragma once

#include "core/util/cancel.h"
#include "core/util/result.h"

#include <string>
#include <vector>

namespace fxs::compile {

struct ProcessResult {
    int exitCode = -1;      // -1 when killed or not exited normally
    bool timedOut = false;  // killed after the timeout
    bool cancelled = false; // killed because the cancel token fired
    std::string output;     // stdout and stderr, interleaved as written
    double ms = 0;          // wall time
};

// argv[0] is the program path (looked up in PATH when it has no '/'). Error::Io when the
// program cannot be started; a non-zero exit, a timeout or a cancellation is a ProcessResult,
// not an Error. The child and what it started (its process group) are killed at the timeout or
// within ~100 ms of `cancel` firing. Thread-safe (posix_spawn, descriptors close-on-exec).
Result<ProcessResult> runProcess(const std::vector<std::string>& argv, int timeoutMs,
                                 const CancelToken& cancel = CancelToken::none());

// "a b 'c d'": the argv as a shell-quoted command line, for reports.
std::string commandLine(const std::vector<std::string>& argv);

} // namespace fxs::compile
