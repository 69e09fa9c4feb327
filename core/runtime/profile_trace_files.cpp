#include "core/runtime/profile_trace_files.h"

#include "core/runtime/profile_trace_reader.h"
#include "core/util/file_reader.h"

namespace fxs::runtime {

bool isProfileTrace(const std::string& path)
{
    if (fileType(path) != FileType::Regular) {
        return false;
    }
    auto head = readFileHead(path);
    return head && looksLikeProfileTrace(*head);
}

std::vector<std::string> profileTracesIn(const std::string& path)
{
    if (!isDirectory(path)) {
        return isProfileTrace(path) ? std::vector<std::string>{path} : std::vector<std::string>{};
    }
    std::vector<std::string> out;
    if (auto files = listFiles(path)) {
        for (const auto& f : *files) {
            if (isProfileTrace(f)) {
                out.push_back(f);
            }
        }
    }
    return out;
}

} // namespace fxs::runtime
