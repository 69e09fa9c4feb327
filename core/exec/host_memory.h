// INTERNAL to core/exec: how the process's C allocator treats tensor memory on the CPU. LibTorch
// allocates CPU tensors with posix_memalign; glibc serves large blocks with fresh mmap()s and
// returns the top of the heap to the system on free, so a graph run again and again faults every
// page of its intermediates in anew each time (GPT-12 forward: about 8,000 page faults a run).
// Not for: CUDA memory (LibTorch caches that itself), or allocators other than glibc's.
#pragma once

namespace fxs::exec::detail {

// From now on, freed blocks stay with the process (up to 32 MiB served from the heap, the heap
// not trimmed on free), so repeated runs reuse pages already faulted in. Once per process;
// nothing when the user tuned malloc through the environment (GLIBC_TUNABLES, MALLOC_*_) or
// the C library is not glibc.
void keepFreedHostMemory();

// Whether keepFreedHostMemory changes anything here: glibc's allocator, not tuned through the
// environment.
bool hostMemoryPolicyApplies();

// Returns the free memory kept so to the system (malloc_trim): after a run's repeats, so that
// the process does not hold its peak for good. Nothing when keepFreedHostMemory changed
// nothing, or while a hold is on.
void releaseFreedHostMemory();

// Holds (nested, counted, thread-safe) under which releaseFreedHostMemory returns nothing; the
// last one ended releases (exec::HostMemoryHold).
void holdFreedHostMemory();
void endFreedHostMemoryHold();

} // namespace fxs::exec::detail
