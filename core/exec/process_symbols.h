// INTERNAL to core/exec: entry points of a library already loaded into the process (cuBLAS and
// cuDNN, which LibTorch's CUDA library loads), found with dlsym. fxscope loads no library for
// them: a symbol the process lacks stays null and the caller keeps LibTorch's path.
#pragma once

#include <dlfcn.h>

namespace fxs::exec::detail {

template <class F>
void findInProcess(F& f, const char* name)
{
    f = reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}

} // namespace fxs::exec::detail
