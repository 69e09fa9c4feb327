// Reads whole files into memory (importers parse from one contiguous buffer) and lists the
// files of a directory. Errors carry the path and the OS reason.
#pragma once

#include "core/util/result.h"

#include <string>
#include <vector>

namespace fxs {

Result<std::string> readFile(const std::string& path);
// Regular files directly inside dir, sorted by name (not recursive).
Result<std::vector<std::string>> listFiles(const std::string& dir);
bool isDirectory(const std::string& path);
Status writeFile(const std::string& path, std::string_view data);

} // namespace fxs
