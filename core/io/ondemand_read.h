// Small readers of simdjson on-demand values shared by the TORCH_TRACE payload decoders.
// For the decoders in core/io only; each returns false instead of throwing when the value has
// another type, so that the caller can record a problem and go on.
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>

namespace fxs::io::detail {

// The value as a string (copied into out); false when it is not a JSON string.
inline bool getString(simdjson::ondemand::value v, std::string& out)
{
    std::string_view s;
    if (v.get_string().get(s) != simdjson::SUCCESS) {
        return false;
    }
    out.assign(s);
    return true;
}

} // namespace fxs::io::detail
