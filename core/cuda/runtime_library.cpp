#include "core/cuda/runtime_library.h"

#include <dlfcn.h>

namespace fxs::cuda::detail {

Result<RuntimeLibrary> RuntimeLibrary::open(const std::string& what,
                                            const std::vector<std::string>& candidates)
{
#if defined(FXSCOPE_CUDA_DISABLED)
    (void)candidates;
    return makeError(ErrorCode::Unsupported,
                     "this fxscope was built without CUDA support (FXSCOPE_ENABLE_CUDA=OFF); " +
                         what + " is not loaded");
#else
    std::string tried;
    for (const auto& c : candidates) {
        if (c.empty()) {
            continue;
        }
        if (void* h = ::dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)) {
            RuntimeLibrary lib;
            lib.m_handle = h;
            lib.m_path = c;
            return lib;
        }
        tried += (tried.empty() ? "" : ", ") + c;
    }
    return makeError(ErrorCode::Unsupported, what + " not found (tried " + tried + ")");
#endif
}

void* RuntimeLibrary::symbol(const std::vector<const char*>& names) const
{
    for (const char* n : names) {
        if (void* p = ::dlsym(m_handle, n)) {
            return p;
        }
    }
    return nullptr;
}

} // namespace fxs::cuda::detail
