// Reads the guard tree Dynamo logs as dynamo_cpp_guards_str ("TREE_GUARD_MANAGER:" with
// "+- KIND: expr  # user code  # file:line in fn" lines nested by "| ") into a flat list of
// model::GuardEntry. Torch-free and tolerant: lines it does not understand are skipped.
// Used on demand (diagnose, the app), not at import: the text of a large model is megabytes.
#pragma once

#include "core/model/dynamo_records.h"

#include <string_view>
#include <vector>

namespace fxs::io {

std::vector<model::GuardEntry> parseGuardTree(std::string_view text);

} // namespace fxs::io
