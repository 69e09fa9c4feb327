// A loaded region artifact: dlopen of a shared object that passed the ownership check, and its
// entry point. Not a general plugin loader: one symbol, the region entry of cpp_printer.h.
#pragma once

#include "core/util/result.h"

#include <cstdint>
#include <memory>
#include <string>

namespace fxs::compile {

using RegionEntry = int (*)(void* const* inputs, void* const* outputs, const std::int64_t* dims,
                            std::int64_t ndims);

class SharedLibrary {
public:
    // Refuses files not owned by the user or writable by group/others (cache::checkPrivateFile)
    // before dlopen; Error::Runtime with dlerror() when loading or the symbol lookup fails.
    static Result<std::shared_ptr<SharedLibrary>> load(const std::string& path);
    ~SharedLibrary();
    SharedLibrary(const SharedLibrary&) = delete;
    SharedLibrary& operator=(const SharedLibrary&) = delete;

    RegionEntry entry() const { return m_entry; }
    const std::string& path() const { return m_path; }

private:
    SharedLibrary() = default;
    void* m_handle = nullptr;
    RegionEntry m_entry = nullptr;
    std::string m_path;
};

} // namespace fxs::compile
