// The local artifact store as compile and profile open it: opened, and when it is not healthy
// (a damaged database, a full disk) one warning on stderr naming the file and the fix, so that a
// run that bypasses the cache says why once rather than only in each region's headline. A store
// that cannot be created at all (Error::Io: a full disk before the cache exists) is a warning
// too, and the run goes on without a cache (null); refusals (Error::Invalid, Unsupported) stay
// errors.
#pragma once

#include "core/cache/cache_store.h"
#include "core/util/result.h"

#include <memory>
#include <string>

namespace fxs::cli {

// path: --cache (empty: the default store). command: "compile", "profile". Null: no cache.
Result<std::unique_ptr<cache::CacheStore>> openStoreFor(const std::string& path,
                                                        const std::string& command);

} // namespace fxs::cli
