// The team key that signs and authenticates remote cache values (HMAC-SHA-256): from
// $FXSCOPE_CACHE_KEY, else from the file named by $FXSCOPE_CACHE_KEY_FILE, which must be a
// regular file owned by this user and readable by nobody else. Not the signing itself
// (remote_value.h).
#pragma once

#include "core/util/result.h"

#include <optional>
#include <string>

namespace fxs::remote {

// The key in a key file (trailing whitespace and newlines dropped). Error::Invalid when the
// file is not a regular file, not owned by the effective user, or its mode grants anything to
// group or others (found: the mode in octal; fix: chmod 600); Error::Io when it cannot be read;
// Error::Invalid when it holds no key.
Result<std::string> readKeyFile(const std::string& path);

// nullopt when neither variable is set (the remote tier then reads metadata only). An empty
// $FXSCOPE_CACHE_KEY counts as unset. Errors: readKeyFile's.
Result<std::optional<std::string>> teamKeyFromEnvironment();

} // namespace fxs::remote
