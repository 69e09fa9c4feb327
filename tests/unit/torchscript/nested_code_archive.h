// Test input for the nesting guard (core/torchscript/code_nesting.h): a copy of a TorchScript
// archive whose forward returns its value wrapped in `depth` parentheses, written with libzip
// in the test itself. Shared by the loader's unit test and the CLI test.
#pragma once

#include <zip.h>

#include <filesystem>
#include <string>

namespace fxs::test {

// LibTorch 1.13's parser overflows an 8 MiB stack between 5,000 and 6,000 nested brackets
// (fxscope-cli inspect, measured); this much overflows far larger stacks too.
inline constexpr int kCrashingDepth = 50000;

// Copies `from` to `to`, replacing `return <value>` in the entry whose name ends with
// `codeSuffix` by `return ((...<value>...))`. Returns the entry's name, empty on failure.
inline std::string writeNestedReturn(const std::string& from, const std::string& to,
                                     const std::string& codeSuffix, const std::string& value,
                                     int depth)
{
    std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
    int err = 0;
    zip_t* z = zip_open(to.c_str(), 0, &err);
    std::string name;
    std::string code;
    for (zip_int64_t i = 0; z != nullptr && i < zip_get_num_entries(z, 0); ++i) {
        zip_stat_t st;
        zip_stat_index(z, static_cast<zip_uint64_t>(i), 0, &st);
        const std::string entry = st.name;
        if (entry.size() < codeSuffix.size() ||
            entry.compare(entry.size() - codeSuffix.size(), codeSuffix.size(), codeSuffix) != 0) {
            continue;
        }
        code.assign(st.size, '\0');
        zip_file_t* f = zip_fopen_index(z, static_cast<zip_uint64_t>(i), 0);
        zip_fread(f, code.data(), st.size);
        zip_fclose(f);
        const std::string plain = "return " + value;
        const auto at = code.find(plain);
        if (at == std::string::npos) {
            break;
        }
        code.replace(at, plain.size(),
                     "return " + std::string(depth, '(') + value + std::string(depth, ')'));
        zip_source_t* s = zip_source_buffer(z, code.data(), code.size(), 0);
        if (zip_file_replace(z, static_cast<zip_uint64_t>(i), s, 0) == 0) {
            name = entry;
        }
        break;
    }
    if (z != nullptr && zip_close(z) != 0) { // code must live until here: libzip reads it now
        zip_discard(z);
        return {};
    }
    return name;
}

} // namespace fxs::test
