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

// The same in a library the process has loaded privately (the CUDA driver, which LibTorch's
// CUDA runtime opens itself): found by its file name without loading it (RTLD_NOLOAD); the
// first of `names` it has. Null when the library is not loaded or has none of them.
template <class F>
void findInLoaded(F& f, const char* library, std::initializer_list<const char*> names)
{
    f = nullptr;
    void* lib = dlopen(library, RTLD_NOW | RTLD_NOLOAD); // kept open: used for the process's life
    for (const char* name : names) {
        if (lib && !f) {
            f = reinterpret_cast<F>(dlsym(lib, name));
        }
    }
}

} // namespace fxs::exec::detail
