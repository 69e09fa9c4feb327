// INTERNAL to core/exec: entry points of a library already loaded into the process (cuBLAS and
// cuDNN, which LibTorch's CUDA library loads; the CUDA driver), found with dlsym. fxscope loads
// no library for them: a symbol the process lacks stays null and the caller keeps LibTorch's
// path.
#pragma once

#include <dlfcn.h>

#include <initializer_list>

namespace fxs::exec::detail {

template <class F>
void findInProcess(F& f, const char* name)
{
    f = reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}

// A library the process has loaded privately (the CUDA driver, which LibTorch's CUDA runtime
// opens itself), found by its file name without loading it (RTLD_NOLOAD): null when it is not
// loaded. The handle stays open for the process's life.
inline void* loadedLibrary(const char* name)
{
    return dlopen(name, RTLD_NOW | RTLD_NOLOAD);
}

// The first of `names` that `library` (loadedLibrary's handle, may be null) has; else null.
template <class F>
void findIn(void* library, F& f, std::initializer_list<const char*> names)
{
    f = nullptr;
    for (const char* name : names) {
        if (library && !f) {
            f = reinterpret_cast<F>(dlsym(library, name));
        }
    }
}

} // namespace fxs::exec::detail
