#include "core/runtime/kernel_rates.h"

namespace fxs::runtime {

KernelRates kernelRates(const KernelRow& row, const std::optional<DevicePeaks>& peaks)
{
    KernelRates r;
    const double seconds = row.us * 1e-6;
    const double calls = static_cast<double>(row.calls);
    if (row.bytes) {
        r.bytes = *row.bytes * calls;
        if (seconds > 0) {
            r.gbps = *r.bytes / seconds / 1e9;
            if (peaks && peaks->bytesPerSec > 0) {
                r.pctPeakBw = 100.0 * *r.gbps * 1e9 / peaks->bytesPerSec;
            }
        }
    }
    if (row.flops) {
        r.flops = *row.flops * calls;
        if (seconds > 0) {
            r.tflops = *r.flops / seconds / 1e12;
            if (peaks) {
                const double peak = flopsPeakFor(*peaks, row.name, &r.peakKind);
                if (peak > 0) {
                    r.pctPeakFlops = 100.0 * *r.tflops * 1e12 / peak;
                } else {
                    r.peakKind.clear();
                }
            }
        }
    }
    return r;
}

} // namespace fxs::runtime
