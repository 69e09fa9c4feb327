// A loaded region artifact: dlopen of a shared object that passed the ownership check, and its
// entry points. Not a general plugin loader: the region entries of cpp_printer.h.
#pragma once

#include "core/util/result.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fxs::compile {

using RegionEntry = int (*)(void* const* inputs, void* const* outputs, const std::int64_t* dims,
                            std::int64_t ndims);

class SharedLibrary {
public:
    // Refuses files not owned by the user or writable by group/others (cache::checkPrivateFile)
    // before dlopen; Error::Runtime with dlerror() when loading or a symbol lookup fails.
    // entries: how many region entries (codegen::entrySymbol(0 .. entries-1)) it must export.
    static Result<std::shared_ptr<SharedLibrary>> load(const std::string& path, int entries = 1);
    ~SharedLibrary();
    SharedLibrary(const SharedLibrary&) = delete;
    SharedLibrary& operator=(const SharedLibrary&) = delete;

    RegionEntry entry(int index = 0) const { return m_entries.at(std::size_t(index)); }
    int entryCount() const { return static_cast<int>(m_entries.size()); }
    const std::string& path() const { return m_path; }

private:
    SharedLibrary() = default;
    void* m_handle = nullptr;
    std::vector<RegionEntry> m_entries;
    std::string m_path;
};

} // namespace fxs::compile
