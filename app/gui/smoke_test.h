// `fxscope --smoke-test PATH...`: opens the paths as the command line does, waits for the load,
// prints one line saying what was loaded and returns an exit code instead of staying open. For
// checks of an installed package (QT_QPA_PLATFORM=offscreen), not for users.
#pragma once

#include <QStringList>

namespace fxs::app {

class MainWindow;

// 0: something was read with no errors; 1: nothing read or errors; 2: the load was cancelled;
// 3: no load finished within timeoutMs.
int runSmokeTest(MainWindow& window, const QStringList& paths, int timeoutMs = 120000);

} // namespace fxs::app
