#include "core/compile/shared_library.h"

#include "core/cache/cache_paths.h"
#include "core/cache/cache_store.h"
#include "core/codegen/cpp_printer.h"

#include <dlfcn.h>

#include <algorithm>

namespace fxs::compile {

Result<std::shared_ptr<SharedLibrary>> SharedLibrary::load(const std::string& path, int entries)
{
    if (Status s = cache::checkPrivateFile(path); !s) {
        return s.error();
    }
    if (Status s = cache::checkPrivateFile(cache::parentDir(path)); !s) {
        return s.error();
    }
    std::shared_ptr<SharedLibrary> lib(new SharedLibrary());
    lib->m_path = path;
    lib->m_handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib->m_handle) {
        const char* e = ::dlerror();
        return makeError(ErrorCode::Runtime, std::string("dlopen failed: ") + (e ? e : "?"), path);
    }
    for (int i = 0; i < std::max(1, entries); ++i) {
        const std::string symbol = codegen::entrySymbol(i);
        void* sym = ::dlsym(lib->m_handle, symbol.c_str());
        if (!sym) {
            return makeError(ErrorCode::Runtime, "the artifact has no " + symbol + " symbol", path);
        }
        lib->m_entries.push_back(reinterpret_cast<RegionEntry>(sym));
    }
    return lib;
}

SharedLibrary::~SharedLibrary()
{
    if (m_handle) {
        ::dlclose(m_handle);
    }
}

} // namespace fxs::compile
