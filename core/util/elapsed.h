// msSince: milliseconds of the steady clock since a time point, for the timings the engine
// reports (compile, run, load). Not a benchmark timer: benchmarks use Google Benchmark's.
#pragma once

#include <chrono>

namespace fxs {

inline double msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
        .count();
}

} // namespace fxs
