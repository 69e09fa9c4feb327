#include "core/cuda/device.h"

#include "core/cuda/driver_api.h"
#include "core/cuda/module.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace fxs::cuda {

using namespace detail;

std::string DeviceInfo::arch() const { return "sm_" + std::to_string(sm()); }

Result<DeviceInfo> device(int ordinal)
{
    auto api = driverApi();
    if (!api) {
        return api.error();
    }
    const DriverApi& a = **api;
    CUdevice dev = 0;
    if (Status s = check(a, a.deviceGet(&dev, ordinal), "cuDeviceGet"); !s) {
        return s.error();
    }
    DeviceInfo info;
    info.ordinal = ordinal;
    char name[256] = {};
    a.deviceGetName(name, int(sizeof name) - 1, dev);
    info.name = name;
    int l2 = 0;
    const char* what = "cuDeviceGetAttribute";
    const Status s[] = {check(a, a.deviceGetAttribute(&info.major, kAttrMajor, dev), what),
                        check(a, a.deviceGetAttribute(&info.minor, kAttrMinor, dev), what),
                        check(a, a.deviceGetAttribute(&info.multiprocessors,
                                                      kAttrMultiprocessors, dev),
                              what),
                        check(a, a.deviceGetAttribute(&l2, kAttrL2Bytes, dev), what)};
    for (const auto& st : s) {
        if (!st) {
            return st.error();
        }
    }
    info.l2Bytes = l2;
    return info;
}

Result<std::vector<DeviceInfo>> devices()
{
    auto api = driverApi();
    if (!api) {
        return api.error();
    }
    int count = 0;
    if (Status s = check(**api, (*api)->deviceGetCount(&count), "cuDeviceGetCount"); !s) {
        return s.error();
    }
    std::vector<DeviceInfo> out;
    for (int i = 0; i < count; ++i) {
        auto d = device(i);
        if (!d) {
            return d.error();
        }
        out.push_back(*d);
    }
    return out;
}

Result<std::string> driverVersion()
{
    auto api = driverApi();
    if (!api) {
        return api.error();
    }
    int v = 0;
    (*api)->driverGetVersion(&v);
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

bool available()
{
    auto d = devices();
    return d && !d->empty();
}

int parseArch(const std::string& text)
{
    if (text.rfind("sm_", 0) != 0 || text.size() < 5) {
        return 0;
    }
    int v = 0;
    for (std::size_t i = 3; i < text.size(); ++i) {
        if (text[i] < '0' || text[i] > '9') {
            return 0;
        }
        v = v * 10 + (text[i] - '0');
    }
    return v;
}

namespace {

// Copies between two fresh allocations; GB/s counting bytes read and written.
Result<double> measureCopy(const DriverApi& a, int ordinal, std::size_t bytes, int repeats)
{
    if (Status s = useDevice(a, ordinal); !s) {
        return s.error();
    }
    CUdeviceptr src = 0;
    CUdeviceptr dst = 0;
    if (Status s = check(a, a.memAlloc(&src, bytes), "cuMemAlloc"); !s) {
        return s.error();
    }
    auto freeAll = [&] {
        a.memFree(src);
        if (dst) {
            a.memFree(dst);
        }
    };
    if (Status s = check(a, a.memAlloc(&dst, bytes), "cuMemAlloc"); !s) {
        freeAll();
        return s.error();
    }
    a.memsetD8Async(src, 0x5a, bytes, nullptr);
    auto timer = EventTimer::create(ordinal);
    std::vector<double> ms;
    for (int i = 0; timer && i <= repeats; ++i) {
        (void)(*timer)->start(nullptr);
        a.memcpyDtoDAsync(dst, src, bytes, nullptr);
        (void)(*timer)->stop(nullptr);
        auto t = (*timer)->elapsedMs();
        if (!t) {
            freeAll();
            return t.error();
        }
        if (i > 0) { // the first copy warms up
            ms.push_back(*t);
        }
    }
    freeAll();
    if (!timer) {
        return timer.error();
    }
    std::sort(ms.begin(), ms.end());
    const double median = ms.empty() ? 0 : ms[ms.size() / 2];
    return median > 0 ? 2.0 * double(bytes) / (median * 1e6) : 0.0;
}

} // namespace

Result<double> copyBandwidth(int ordinal, std::size_t bytes, int repeats)
{
    auto api = driverApi();
    if (!api) {
        return api.error();
    }
    static std::mutex mutex;
    static std::map<int, double> measured;
    const bool defaults = bytes == (std::size_t(256) << 20) && repeats == 20;
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = measured.find(ordinal); defaults && it != measured.end()) {
        return it->second;
    }
    auto gbps = measureCopy(**api, ordinal, bytes, std::max(1, repeats));
    if (gbps && defaults) {
        measured[ordinal] = *gbps;
    }
    return gbps;
}

} // namespace fxs::cuda
