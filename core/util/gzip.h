// gzip inflation with a cap on the inflated size, for the file reader's transparent `.gz`
// support (TORCH_TRACE logs and printed graphs are often kept gzip'd). Not a general
// compression API: it only inflates, and only gzip streams (one or several members).
#pragma once

#include "core/util/result.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace fxs {

// True when bytes start with the gzip magic 1f 8b.
bool isGzip(std::string_view bytes);

enum class GunzipMode {
    Whole, // compressed is the whole stream: truncation is an error, so is output over the cap
    Head,  // compressed may be the first bytes of a stream: the first maxBytes inflated bytes
};

// Inflates a gzip stream (concatenated members included), at most maxBytes of output.
// Errors name `name`: Parse for corrupt or truncated data, Unsupported when the output
// would exceed maxBytes (Whole), Runtime when memory runs out. Never throws.
Result<std::string> gunzip(std::string_view compressed, const std::string& name,
                           std::size_t maxBytes, GunzipMode mode = GunzipMode::Whole);

} // namespace fxs
