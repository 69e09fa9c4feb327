#include "core/cuda/nvrtc.h"

#include "core/cuda/runtime_library.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

namespace fxs::cuda {

using detail::RuntimeLibrary;

// nvrtc.h's functions (nvrtcResult is an int enum, nvrtcProgram an opaque pointer).
struct Nvrtc::Api {
    using Program = struct _nvrtcProgram*;
    int (*version)(int*, int*);
    int (*numArchs)(int*);
    int (*archs)(int*);
    int (*create)(Program*, const char*, const char*, int, const char* const*,
                  const char* const*);
    int (*compile)(Program, int, const char* const*);
    int (*logSize)(Program, std::size_t*);
    int (*log)(Program, char*);
    int (*cubinSize)(Program, std::size_t*);
    int (*cubin)(Program, char*);
    int (*ptxSize)(Program, std::size_t*);
    int (*ptx)(Program, char*);
    int (*destroy)(Program*);
    const char* (*errorString)(int);
};

namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::string> candidates()
{
    const char* env = std::getenv("FXSCOPE_NVRTC");
    std::vector<std::string> c{env ? env : "", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
#if defined(FXSCOPE_CUDA_TOOLKIT_LIBDIR)
    c.push_back(std::string(FXSCOPE_CUDA_TOOLKIT_LIBDIR) + "/libnvrtc.so");
#endif
    c.push_back("/usr/local/cuda/lib64/libnvrtc.so");
    return c;
}

Status bindAll(const RuntimeLibrary& lib, Nvrtc::Api& a)
{
    const Status s[] = {
        lib.bind(a.version, {"nvrtcVersion"}),
        lib.bind(a.numArchs, {"nvrtcGetNumSupportedArchs"}),
        lib.bind(a.archs, {"nvrtcGetSupportedArchs"}),
        lib.bind(a.create, {"nvrtcCreateProgram"}),
        lib.bind(a.compile, {"nvrtcCompileProgram"}),
        lib.bind(a.logSize, {"nvrtcGetProgramLogSize"}),
        lib.bind(a.log, {"nvrtcGetProgramLog"}),
        lib.bind(a.cubinSize, {"nvrtcGetCUBINSize"}),
        lib.bind(a.cubin, {"nvrtcGetCUBIN"}),
        lib.bind(a.ptxSize, {"nvrtcGetPTXSize"}),
        lib.bind(a.ptx, {"nvrtcGetPTX"}),
        lib.bind(a.destroy, {"nvrtcDestroyProgram"}),
        lib.bind(a.errorString, {"nvrtcGetErrorString"}),
    };
    for (const auto& st : s) {
        if (!st) {
            return st;
        }
    }
    return {};
}

std::string programLog(const Nvrtc::Api& api, Nvrtc::Api::Program p)
{
    std::size_t n = 0;
    if (api.logSize(p, &n) != 0 || n <= 1) {
        return {};
    }
    std::string log(n, '\0');
    api.log(p, log.data());
    log.resize(n - 1);
    return log;
}

} // namespace

Result<Nvrtc> Nvrtc::load()
{
    auto lib = RuntimeLibrary::open("NVRTC (libnvrtc)", candidates());
    if (!lib) {
        return lib.error();
    }
    static Api api{};
    if (Status s = bindAll(*lib, api); !s) {
        return s.error();
    }
    Nvrtc n;
    n.m_api = &api;
    n.m_path = lib->path();
    api.version(&n.m_major, &n.m_minor);
    int count = 0;
    if (api.numArchs(&count) == 0 && count > 0) {
        n.m_archs.resize(std::size_t(count));
        api.archs(n.m_archs.data());
        std::sort(n.m_archs.begin(), n.m_archs.end());
    }
    return n;
}

Result<const Nvrtc*> Nvrtc::get()
{
    static const Result<Nvrtc> nvrtc = load();
    if (!nvrtc) {
        return nvrtc.error();
    }
    return &*nvrtc;
}

std::string Nvrtc::version() const
{
    return std::to_string(m_major) + "." + std::to_string(m_minor);
}

Result<NvrtcOutput> Nvrtc::compile(std::string_view source, const std::string& name, int arch,
                                   const std::vector<std::string>& extra) const
{
    NvrtcOutput out;
    const bool cubin = std::find(m_archs.begin(), m_archs.end(), arch) != m_archs.end();
    int target = arch;
    if (!cubin) {
        auto below = std::find_if(m_archs.rbegin(), m_archs.rend(), [&](int a) { return a < arch; });
        if (below == m_archs.rend()) {
            return makeError(ErrorCode::Unsupported, "NVRTC " + version() +
                                                         " cannot build for sm_" +
                                                         std::to_string(arch));
        }
        target = *below;
    }
    out.ptx = !cubin;
    out.target = (cubin ? "sm_" : "compute_") + std::to_string(target);
    const auto t0 = Clock::now();
    const std::string text(source);
    Api::Program prog = nullptr;
    if (int r = m_api->create(&prog, text.c_str(), name.c_str(), 0, nullptr, nullptr); r != 0) {
        return makeError(ErrorCode::Runtime,
                         std::string("nvrtcCreateProgram failed: ") + m_api->errorString(r));
    }
    const std::string archOption = "--gpu-architecture=" + out.target;
    std::vector<const char*> options = {archOption.c_str(), "-std=c++17"};
    for (const auto& o : extra) {
        options.push_back(o.c_str());
    }
    const int r = m_api->compile(prog, int(options.size()), options.data());
    out.log = programLog(*m_api, prog);
    if (r != 0) {
        m_api->destroy(&prog);
        Error e = makeError(ErrorCode::Runtime, std::string("NVRTC failed (") +
                                                     m_api->errorString(r) + ")", name);
        e.found = out.log;
        return e;
    }
    std::size_t size = 0;
    (out.ptx ? m_api->ptxSize : m_api->cubinSize)(prog, &size);
    out.image.resize(size);
    (out.ptx ? m_api->ptx : m_api->cubin)(prog, out.image.data());
    m_api->destroy(&prog);
    out.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    return out;
}

} // namespace fxs::cuda
