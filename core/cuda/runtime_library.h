// INTERNAL to core/cuda: dlopen of a CUDA library (libcuda, libnvrtc) from a list of candidate
// names and paths, and dlsym of its functions, with the tried places in the error. The handle
// is kept for the life of the process (the libraries are loaded once and never unloaded).
#pragma once

#include "core/util/result.h"

#include <string>
#include <vector>

namespace fxs::cuda::detail {

class RuntimeLibrary {
public:
    // The first candidate that loads. Error::Unsupported naming what was tried.
    static Result<RuntimeLibrary> open(const std::string& what,
                                       const std::vector<std::string>& candidates);

    // The first of the names that resolves (versioned names first), or nullptr.
    void* symbol(const std::vector<const char*>& names) const;
    const std::string& path() const { return m_path; }

    // Looks up each name into `fn`; the first one missing is reported.
    template <typename F>
    Status bind(F& fn, std::vector<const char*> names) const
    {
        fn = reinterpret_cast<F>(symbol(names));
        if (!fn) {
            return makeError(ErrorCode::Unsupported,
                             m_path + " lacks " + std::string(names.front()));
        }
        return {};
    }

private:
    void* m_handle = nullptr;
    std::string m_path;
};

} // namespace fxs::cuda::detail
