// msSince: milliseconds of the steady clock since a time point, and medianOf the samples, for
// the timings the engine reports (compile, run, load). Not a benchmark timer: benchmarks use
// Google Benchmark's.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace fxs {

inline double msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
        .count();
}

// The median of the samples (the mean of the middle two for an even count); 0 when none.
inline double medianOf(std::vector<double> samples)
{
    std::sort(samples.begin(), samples.end());
    const std::size_t n = samples.size();
    if (n == 0) {
        return 0.0;
    }
    return n % 2 == 1 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

} // namespace fxs
