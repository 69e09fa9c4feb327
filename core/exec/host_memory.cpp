// The C allocator's policy for CPU tensors (host_memory.h): glibc's mallopt and malloc_trim.
#include "core/exec/host_memory.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace fxs::exec::detail {
namespace {

std::atomic<bool> g_kept{false};
std::atomic<int> g_holds{0};

// Whether the user set glibc's malloc parameters through the environment: theirs win.
bool userTunedMalloc()
{
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    if (tunables && std::strstr(tunables, "glibc.malloc.") != nullptr) {
        return true;
    }
    for (const char* name : {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_",
                             "MALLOC_MMAP_MAX_"}) {
        if (std::getenv(name) != nullptr) {
            return true;
        }
    }
    return false;
}

} // namespace

bool hostMemoryPolicyApplies()
{
#if defined(__GLIBC__)
    return !userTunedMalloc();
#else
    return false;
#endif
}

void keepFreedHostMemory()
{
#if defined(__GLIBC__)
    static std::once_flag once;
    std::call_once(once, [] {
        if (userTunedMalloc()) {
            return;
        }
        // 32 MiB is the largest mmap threshold glibc accepts for the heap (HEAP_MAX_SIZE / 2);
        // blocks above it keep their own mappings. The trim threshold keeps the heap's top.
        const bool mmap = mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1;
        const bool trim = mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1;
        g_kept = mmap && trim;
    });
#endif
}

void releaseFreedHostMemory()
{
#if defined(__GLIBC__)
    if (g_kept && g_holds.load() == 0) {
        malloc_trim(0);
    }
#endif
}

void holdFreedHostMemory()
{
    keepFreedHostMemory();
    ++g_holds;
}

void endFreedHostMemoryHold()
{
    if (--g_holds == 0) {
        releaseFreedHostMemory();
    }
}

} // namespace fxs::exec::detail
