// The one way fxscope-cli commands print their --json contracts (README): through core's
// dumpJson, so that invalid UTF-8 in any string (node names or targets read from a damaged
// file, bytes of a binary file quoted in a message, file paths) becomes U+FFFD instead of
// aborting the process. Also how an Error appears in those outputs.
#pragma once

#include "core/util/diagnostics.h"
#include "core/util/error.h"

#include <nlohmann/json.hpp>

namespace fxs::cli {

// value pretty-printed (2 spaces) and a newline, on stdout.
void printJson(const nlohmann::json& value);

// {"code", "message", "where", "expected", "found"}: code is errorCodeName(e.code).
nlohmann::json errorJson(const Error& e);

// {"errors": N, "warnings": M}: how inspect and diagnose count the problems met while reading
// (notes left out), so that one log gets one count from both.
nlohmann::json problemCountJson(const Diagnostics& diagnostics);

} // namespace fxs::cli
