#include "app/cli/store_option.h"

#include <iostream>

namespace fxs::cli {

Result<std::unique_ptr<cache::CacheStore>> openStoreFor(const std::string& path,
                                                        const std::string& command)
{
    cache::StoreOptions so;
    so.path = path;
    auto store = cache::CacheStore::open(so);
    if (!store) {
        // A cache that cannot be created or opened (a full disk, a folder that cannot be made)
        // costs the run its cache, not its result. A refusal (another user's file, a link, a
        // folder or database that is not fxscope's, a newer schema) is the user's to fix.
        if (store.error().code != ErrorCode::Io) {
            return store.error();
        }
        std::cerr << "fxscope-cli " << command << ": warning: " << store.error().toString()
                  << "; compiling without the cache\n";
        return std::unique_ptr<cache::CacheStore>();
    }
    if ((*store)->condition() != cache::StoreCondition::Healthy) {
        std::cerr << "fxscope-cli " << command << ": warning: " << (*store)->conditionWarning()
                  << "\n";
    }
    return store;
}

} // namespace fxs::cli
