#include "app/gui/shutdown.h"

#include "views/jobs/job_tracker.h"

#include <cstdio>
#include <cstdlib>

namespace fxs::app {

int finishProcess(int exitCode)
{
    if (jobs::JobTracker::detachedJobs() == 0) {
        return exitCode;
    }
    std::fflush(nullptr);
    std::quick_exit(exitCode);
}

} // namespace fxs::app
