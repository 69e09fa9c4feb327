#include "app/cli/store_option.h"

#include <iostream>

namespace fxs::cli {

Result<std::unique_ptr<cache::CacheStore>> openStoreFor(const std::string& path,
                                                        const std::string& command)
{
    cache::StoreOptions so;
    so.path = path;
    auto store = cache::CacheStore::open(so);
    if (store && (*store)->condition() != cache::StoreCondition::Healthy) {
        std::cerr << "fxscope-cli " << command << ": warning: " << (*store)->conditionWarning()
                  << "\n";
    }
    return store;
}

} // namespace fxs::cli
