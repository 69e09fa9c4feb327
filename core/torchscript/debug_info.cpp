#include "core/torchscript/debug_info.h"

#include <cstdint>
#include <string_view>

namespace fxs::torchscript {
namespace {

constexpr std::string_view kDebugSuffix = ".debug_pkl";

std::uint32_t read32(const std::string& s, std::size_t at)
{
    std::uint32_t v = 0;
    for (int i = 3; i >= 0; --i) {
        v = v << 8 | static_cast<unsigned char>(s[at + static_cast<std::size_t>(i)]);
    }
    return v;
}

std::uint16_t read16(const std::string& s, std::size_t at)
{
    return static_cast<std::uint16_t>(static_cast<unsigned char>(s[at]) |
                                      static_cast<unsigned char>(s[at + 1]) << 8);
}

// The end-of-central-directory record: the last signature in the archive's last 64 KB.
std::size_t findEndRecord(const std::string& s)
{
    constexpr std::size_t kTail = 22 + 65535;
    const std::size_t from = s.size() > kTail ? s.size() - kTail : 0;
    const std::size_t at = s.rfind("PK\x05\x06");
    return at != std::string::npos && at >= from && at + 22 <= s.size() ? at : std::string::npos;
}

// Renames the name at `name` (length `length`) when it ends in .debug_pkl.
bool hideName(std::string& s, std::size_t name, std::size_t length)
{
    if (length < kDebugSuffix.size() || name + length > s.size() ||
        std::string_view(s).substr(name + length - kDebugSuffix.size(), kDebugSuffix.size()) !=
            kDebugSuffix) {
        return false;
    }
    s[name + length - 1] = '_';
    return true;
}

} // namespace

int hideDebugInfo(std::string& archive)
{
    const std::size_t end = findEndRecord(archive);
    if (end == std::string::npos || read16(archive, end + 10) == 0xffff ||
        read32(archive, end + 16) == 0xffffffff) {
        return 0; // no directory, or a zip64 one
    }
    int hidden = 0;
    std::size_t at = read32(archive, end + 16);
    for (int n = read16(archive, end + 10); n > 0 && at + 46 <= end; --n) {
        if (read32(archive, at) != 0x02014b50) {
            break;
        }
        const std::size_t nameLength = read16(archive, at + 28);
        if (hideName(archive, at + 46, nameLength)) {
            ++hidden;
            const std::size_t local = read32(archive, at + 42);
            if (local + 30 <= archive.size() && read32(archive, local) == 0x04034b50 &&
                read16(archive, local + 26) == nameLength) {
                hideName(archive, local + 30, nameLength);
            }
        }
        at += 46 + nameLength + read16(archive, at + 30) + read16(archive, at + 32);
    }
    return hidden;
}

} // namespace fxs::torchscript
