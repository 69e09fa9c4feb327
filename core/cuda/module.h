// A compiled image (cubin, or PTX the driver compiles) loaded on one GPU, its kernels and their
// launches, and stream-ordered timing with CUDA events. Uses the device's primary context, the
// one LibTorch's runtime uses, so kernels run beside LibTorch's on the same stream. Streams are
// passed as the driver's handles (void*; null is the default stream). Torch-free.
#pragma once

#include "core/util/result.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::cuda {

struct KernelAttributes {
    int registers = 0;  // per thread
    int localBytes = 0; // per thread (spills and stack)
};

class Module {
public:
    // Error::Unsupported without a driver or GPU; Error::Runtime when the driver refuses the
    // image (e.g. a cubin for another architecture).
    static Result<std::unique_ptr<Module>> load(int device, std::string_view image);
    ~Module();
    Module(const Module&) = delete;
    Module& operator=(const Module&) = delete;

    int device() const { return m_device; }

    // Index of a kernel for launch(); Error::Runtime when the image has no such entry.
    Result<int> kernel(const std::string& name);
    KernelAttributes attributes(int kernel) const;

    // Launches kernel(args) as grid x block threads on `stream`; args are the addresses of
    // the parameter values (as cuLaunchKernel takes them). Asynchronous.
    Status launch(int kernel, std::int64_t grid, int block, void* stream, void** args) const;

private:
    Module() = default;
    int m_device = 0;
    void* m_module = nullptr;
    std::vector<void*> m_functions;
    std::vector<std::string> m_names;
};

// Two events around work on one stream.
class EventTimer {
public:
    static Result<std::unique_ptr<EventTimer>> create(int device);
    ~EventTimer();
    Status start(void* stream);
    Status stop(void* stream);
    // Waits for the stop event; milliseconds between the two.
    Result<double> elapsedMs();

private:
    EventTimer() = default;
    int m_device = 0;
    void* m_start = nullptr;
    void* m_stop = nullptr;
};

// Waits until the stream's work is done.
Status synchronize(int device, void* stream);

} // namespace fxs::cuda
