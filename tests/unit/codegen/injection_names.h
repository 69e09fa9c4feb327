// The hostile names of tests/data/injection/names.txt (one JSON string per line, an empty line
// for the empty name), shared by the source-text and source-invariance tests.
#pragma once

#include "core/util/file_reader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace fxs::testing {

// Empty when the file cannot be read (the calling test then fails on its own count check).
inline std::vector<std::string> injectionNames()
{
    std::vector<std::string> out;
    auto text = readFile(FXSCOPE_TEST_DATA "/injection/names.txt");
    if (!text) {
        return out;
    }
    std::size_t pos = 0;
    while (pos < text->size()) {
        const std::size_t end = std::min(text->find('\n', pos), text->size());
        const std::string line = text->substr(pos, end - pos);
        pos = end + 1;
        out.push_back(line.empty() ? std::string()
                                   : nlohmann::json::parse(line).get<std::string>());
    }
    return out;
}

} // namespace fxs::testing
