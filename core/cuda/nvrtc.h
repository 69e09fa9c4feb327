// NVRTC, the CUDA runtime compiler, loaded at run time (dlopen; never linked): compiles CUDA C++
// to a cubin for one GPU architecture, or to PTX (which the driver compiles when loading) when
// this NVRTC cannot target the architecture. Needs no GPU. Torch-free; not the loader (module.h).
#pragma once

#include "core/util/result.h"

#include <string>
#include <string_view>
#include <vector>

namespace fxs::cuda {

struct NvrtcOutput {
    std::string image;  // cubin, or PTX text when `ptx`
    bool ptx = false;
    std::string target; // "sm_90" (cubin) or "compute_80" (PTX)
    std::string log;    // the compiler's messages (warnings; empty when none)
    double ms = 0;      // wall time of compiling and fetching the image
};

class Nvrtc {
public:
    // The process-wide library: $FXSCOPE_NVRTC, else libnvrtc.so.13/.12/.so on the library
    // path, else the CUDA Toolkit found when fxscope was configured, else /usr/local/cuda.
    // Error::Unsupported naming the places tried.
    static Result<const Nvrtc*> get();

    std::string version() const; // "13.0"
    const std::string& path() const { return m_path; }
    // Architectures this NVRTC can build cubins for (75, 80, 86, 89, 90, ...), ascending.
    const std::vector<int>& architectures() const { return m_archs; }

    // Compiles `source` (named `name` in messages) for SM `arch` (90 for sm_90): a cubin when
    // `arch` is supported, else PTX for the newest supported architecture below it. `extra`
    // options are passed after the architecture and -std=c++17 (e.g. "--use_fast_math").
    // Error::Runtime with the log when the source does not compile; Error::Unsupported when no
    // supported architecture is at or below `arch`.
    Result<NvrtcOutput> compile(std::string_view source, const std::string& name, int arch,
                                const std::vector<std::string>& extra = {}) const;

    struct Api; // the library's functions (defined in nvrtc.cpp)

private:
    const Api* m_api = nullptr;
    std::string m_path;
    int m_major = 0;
    int m_minor = 0;
    std::vector<int> m_archs;

    static Result<Nvrtc> load();
};

} // namespace fxs::cuda
