#include "core/cuda/module.h"

#include "core/cuda/driver_api.h"

namespace fxs::cuda {

using namespace detail;

namespace {

Result<const DriverApi*> onDevice(int device)
{
    auto api = driverApi();
    if (!api) {
        return api.error();
    }
    if (Status s = useDevice(**api, device); !s) {
        return s.error();
    }
    return api;
}

} // namespace

Result<std::unique_ptr<Module>> Module::load(int device, std::string_view image)
{
    auto api = onDevice(device);
    if (!api) {
        return api.error();
    }
    std::unique_ptr<Module> m(new Module());
    m->m_device = device;
    // cuModuleLoadData reads PTX up to its terminating NUL; cubins carry their own size.
    const std::string copy(image);
    CUmodule mod = nullptr;
    if (Status s = check(**api, (*api)->moduleLoadData(&mod, copy.c_str()), "cuModuleLoadData");
        !s) {
        return s.error();
    }
    m->m_module = mod;
    return m;
}

Module::~Module()
{
    if (!m_module) {
        return;
    }
    if (auto api = onDevice(m_device)) {
        (*api)->moduleUnload(static_cast<CUmodule>(m_module));
    }
}

Result<int> Module::kernel(const std::string& name)
{
    for (std::size_t i = 0; i < m_names.size(); ++i) {
        if (m_names[i] == name) {
            return int(i);
        }
    }
    auto api = driverApi();
    if (!api) {
        return api.error();
    }
    CUfunction f = nullptr;
    if (Status s = check(**api,
                         (*api)->moduleGetFunction(&f, static_cast<CUmodule>(m_module), name.c_str()),
                         "cuModuleGetFunction(" + name + ")");
        !s) {
        return s.error();
    }
    m_functions.push_back(f);
    m_names.push_back(name);
    return int(m_functions.size() - 1);
}

KernelAttributes Module::attributes(int kernel) const
{
    KernelAttributes k;
    auto api = driverApi();
    if (api && kernel >= 0 && std::size_t(kernel) < m_functions.size()) {
        auto f = static_cast<CUfunction>(m_functions[std::size_t(kernel)]);
        (*api)->funcGetAttribute(&k.registers, kFuncRegisters, f);
        (*api)->funcGetAttribute(&k.localBytes, kFuncLocalBytes, f);
    }
    return k;
}

Status Module::launch(int kernel, std::int64_t grid, int block, void* stream, void** args) const
{
    auto api = onDevice(m_device);
    if (!api) {
        return api.error();
    }
    if (grid <= 0 || grid > 2147483647 || block <= 0 || block > 1024) {
        return makeError(ErrorCode::Internal, "launch of " + m_names.at(std::size_t(kernel)) +
                                                  " with grid " + std::to_string(grid) +
                                                  " and block " + std::to_string(block));
    }
    auto f = static_cast<CUfunction>(m_functions.at(std::size_t(kernel)));
    const CUresult r = (*api)->launchKernel(f, unsigned(grid), 1, 1, unsigned(block), 1, 1, 0,
                                            static_cast<CUstream>(stream), args, nullptr);
    // The message is made on failure only: this runs once per kernel a region launches.
    return r == kSuccess ? Status()
                         : check(**api, r, "launching " + m_names.at(std::size_t(kernel)));
}

Result<std::unique_ptr<EventTimer>> EventTimer::create(int device)
{
    auto api = onDevice(device);
    if (!api) {
        return api.error();
    }
    std::unique_ptr<EventTimer> t(new EventTimer());
    t->m_device = device;
    CUevent a = nullptr;
    CUevent b = nullptr;
    if (Status s = check(**api, (*api)->eventCreate(&a, 0), "cuEventCreate"); !s) {
        return s.error();
    }
    t->m_start = a;
    if (Status s = check(**api, (*api)->eventCreate(&b, 0), "cuEventCreate"); !s) {
        return s.error();
    }
    t->m_stop = b;
    return t;
}

EventTimer::~EventTimer()
{
    if (auto api = driverApi()) {
        if (m_start) {
            (*api)->eventDestroy(static_cast<CUevent>(m_start));
        }
        if (m_stop) {
            (*api)->eventDestroy(static_cast<CUevent>(m_stop));
        }
    }
}

Status EventTimer::start(void* stream)
{
    auto api = onDevice(m_device);
    if (!api) {
        return api.error();
    }
    return check(**api,
                 (*api)->eventRecord(static_cast<CUevent>(m_start), static_cast<CUstream>(stream)),
                 "cuEventRecord");
}

Status EventTimer::stop(void* stream)
{
    auto api = onDevice(m_device);
    if (!api) {
        return api.error();
    }
    return check(**api,
                 (*api)->eventRecord(static_cast<CUevent>(m_stop), static_cast<CUstream>(stream)),
                 "cuEventRecord");
}

Result<double> EventTimer::elapsedMs()
{
    auto api = onDevice(m_device);
    if (!api) {
        return api.error();
    }
    if (Status s = check(**api, (*api)->eventSynchronize(static_cast<CUevent>(m_stop)),
                         "cuEventSynchronize");
        !s) {
        return s.error();
    }
    float ms = 0;
    if (Status s = check(**api,
                         (*api)->eventElapsedTime(&ms, static_cast<CUevent>(m_start),
                                                  static_cast<CUevent>(m_stop)),
                         "cuEventElapsedTime");
        !s) {
        return s.error();
    }
    return double(ms);
}

Status synchronize(int device, void* stream)
{
    auto api = onDevice(device);
    if (!api) {
        return api.error();
    }
    return check(**api, (*api)->streamSynchronize(static_cast<CUstream>(stream)),
                 "cuStreamSynchronize");
}

} // namespace fxs::cuda
