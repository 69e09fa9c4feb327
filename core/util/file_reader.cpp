#include "core/util/file_reader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace fxs {

Result<std::string> readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return makeError(ErrorCode::Io, std::string("cannot open file: ") + std::strerror(errno),
                         path);
    }
    in.seekg(0, std::ios::end);
    const auto size = in.tellg();
    if (size < 0) {
        return makeError(ErrorCode::Io, "cannot determine the file size", path);
    }
    std::string data(static_cast<std::size_t>(size), '\0');
    in.seekg(0, std::ios::beg);
    in.read(data.data(), size);
    if (!in) {
        return makeError(ErrorCode::Io, "read failed", path);
    }
    return data;
}

Result<std::vector<std::string>> listFiles(const std::string& dir)
{
    std::error_code ec;
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        if (entry.is_regular_file(ec)) {
            files.push_back(entry.path().string());
        }
    }
    if (ec) {
        return makeError(ErrorCode::Io, "cannot list directory: " + ec.message(), dir);
    }
    std::sort(files.begin(), files.end());
    return files;
}

bool isDirectory(const std::string& path)
{
    std::error_code ec;
    return std::filesystem::is_directory(path, ec);
}

Status writeFile(const std::string& path, std::string_view data)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) {
        return makeError(ErrorCode::Io, std::string("cannot write file: ") + std::strerror(errno),
                         path);
    }
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out) {
        return makeError(ErrorCode::Io, "write failed", path);
    }
    return {};
}

} // namespace fxs
