// The one way fxscope turns JSON values into text (CLI outputs, profile, project, plan and
// trace files, cache rows): strings read from damaged or binary files may hold invalid UTF-8,
// and nlohmann's default dump throws on them (an uncaught abort in a CLI). Here invalid
// sequences become U+FFFD, so every writer always produces valid JSON. Not a JSON parser.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace fxs {

// indent < 0: one line; otherwise pretty-printed with that many spaces. Never throws on
// string contents (only std::bad_alloc).
std::string dumpJson(const nlohmann::json& value, int indent = -1);

} // namespace fxs
