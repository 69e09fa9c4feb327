// Where the cache lives and the ownership rule for files that hold code to be loaded. Used by
// the store (database) and the compiler (shared objects written out for dlopen).
#pragma once

#include "core/util/result.h"

#include <string>

namespace fxs::cache {

// Creates dir and missing parents with mode 0700; then applies checkPrivateFile to dir.
Status ensurePrivateDir(const std::string& dir);
// Writes bytes to path with mode 0600 (via a temporary name and rename, so a reader never
// sees a half-written file).
Status writePrivateFile(const std::string& path, std::string_view bytes);
std::string parentDir(const std::string& path);

} // namespace fxs::cache
