// The matmul peak of the roofline, measured with LibTorch's at::mm (kept out of the headers).
#include "core/profile/roofline.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>

namespace fxs::profile {

Result<double> measureMatmulGflops(int n, int repeats)
{
    try {
        n = std::max(n, 16);
        const auto a = at::rand({n, n});
        const auto b = at::rand({n, n});
        auto c = at::mm(a, b); // warm-up
        double best = 0.0;
        for (int r = 0; r < std::max(1, repeats); ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            c = at::mm(a, b);
            const auto t1 = std::chrono::steady_clock::now();
            const double s = std::chrono::duration<double>(t1 - t0).count();
            if (s > 0) {
                best = std::max(best, 2.0 * n * static_cast<double>(n) * n / s / 1e9);
            }
        }
        return best;
    } catch (const std::exception& e) {
        return makeError(ErrorCode::Runtime, std::string("matmul peak: ") + e.what());
    }
}

} // namespace fxs::profile
