// How the desktop app's process ends after its window is gone. Quit cancels every background
// job and each JobTracker waits a bounded time for its workers; a worker that cannot notice
// (blocked in a read of a FIFO with no writer, say) is detached. Such a worker must not keep
// the process alive, nor run while static destructors tear down what it may touch: then the
// process ends with std::quick_exit (settings were written when the window closed).
#pragma once

namespace fxs::app {

// Returns exitCode when no detached worker runs; otherwise flushes stdio and ends the process
// with std::quick_exit(exitCode). Call from main() after the MainWindow is destroyed.
int finishProcess(int exitCode);

} // namespace fxs::app
