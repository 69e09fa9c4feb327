// Ctrl-C (SIGINT) and SIGTERM as a cancel request, for the commands whose work can stop at a
// safe point (compile: queued builds dropped, running compilers killed, nothing half stored).
// The first signal cancels the token and puts the default action back, so a second one ends
// the program at once. Not for commands that finish quickly or cannot stop midway.
#pragma once

#include "core/util/cancel.h"

namespace fxs::cli {

// The token the signals cancel; the first call installs the handlers.
const CancelToken& interruptToken();

// The exit status of a command stopped by a signal (128 + SIGINT, as a shell reports it).
constexpr int kInterruptedExit = 130;

} // namespace fxs::cli
