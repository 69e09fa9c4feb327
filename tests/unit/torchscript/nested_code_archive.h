// Test inputs for the archive guards (core/torchscript/archive_check.h): copies of a TorchScript
// archive with one entry edited, written with libzip in the test itself — a forward that returns
// its value wrapped in `depth` parentheses (nesting guard), or any other edit (pickle lengths).
// Shared by the loader's unit test and the CLI test.
#pragma once

#include <zip.h>

#include <filesystem>
#include <functional>
#include <string>

namespace fxs::test {

// LibTorch 1.13's parser overflows an 8 MiB stack between 5,000 and 6,000 nested brackets
// (fxscope-cli inspect, measured); this much overflows far larger stacks too.
inline constexpr int kCrashingDepth = 50000;

// Copies `from` to `to` and rewrites the first entry whose name ends with `suffix` through
// `edit` (which returns false to leave it as it was). Returns the entry's name, empty on
// failure or when `edit` declined.
inline std::string writeEditedEntry(const std::string& from, const std::string& to,
                                    const std::string& suffix,
                                    const std::function<bool(std::string&)>& edit)
{
    std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
    int err = 0;
    zip_t* z = zip_open(to.c_str(), 0, &err);
    std::string name;
    std::string bytes;
    for (zip_int64_t i = 0; z != nullptr && i < zip_get_num_entries(z, 0); ++i) {
        zip_stat_t st;
        zip_stat_index(z, static_cast<zip_uint64_t>(i), 0, &st);
        const std::string entry = st.name;
        if (entry.size() < suffix.size() ||
            entry.compare(entry.size() - suffix.size(), suffix.size(), suffix) != 0) {
            continue;
        }
        bytes.assign(st.size, '\0');
        zip_file_t* f = zip_fopen_index(z, static_cast<zip_uint64_t>(i), 0);
        zip_fread(f, bytes.data(), st.size);
        zip_fclose(f);
        if (!edit(bytes)) {
            break;
        }
        zip_source_t* s = zip_source_buffer(z, bytes.data(), bytes.size(), 0);
        if (zip_file_replace(z, static_cast<zip_uint64_t>(i), s, 0) == 0) {
            name = entry;
        }
        break;
    }
    if (z != nullptr && zip_close(z) != 0) { // bytes must live until here: libzip reads it now
        zip_discard(z);
        return {};
    }
    return name;
}

// Copies `from` to `to`, replacing `return <value>` in the entry whose name ends with
// `codeSuffix` by `return ((...<value>...))`. Returns the entry's name, empty on failure.
inline std::string writeNestedReturn(const std::string& from, const std::string& to,
                                     const std::string& codeSuffix, const std::string& value,
                                     int depth)
{
    return writeEditedEntry(from, to, codeSuffix, [&](std::string& code) {
        const std::string plain = "return " + value;
        const auto at = code.find(plain);
        if (at == std::string::npos) {
            return false;
        }
        code.replace(at, plain.size(),
                     "return " + std::string(depth, '(') + value + std::string(depth, ')'));
        return true;
    });
}

} // namespace fxs::test
