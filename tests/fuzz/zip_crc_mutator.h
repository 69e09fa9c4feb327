// The zip-aware part of the archive fuzz targets' mutator (fuzz_torchscript, fuzz_pt2): readers
// check each stored entry's CRC-32 (libzip, miniz), so a byte flipped inside an entry would only
// ever test the CRC check. mutateKeepingCrcs rewrites the CRCs of stored entries after most of
// libFuzzer's mutations: the inputs stay whole archives that replay as they are, and the
// mutations reach what the entries hold. Header-only; the target defines
// LLVMFuzzerCustomMutator as a call of it and links zlib.
#pragma once

#include <zlib.h>

#include <cstddef>
#include <cstdint>

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t maxSize);

namespace fxs::fuzz {
namespace zip_detail {

inline constexpr std::uint32_t kLocalHeader = 0x04034b50;
inline constexpr std::uint32_t kCentralHeader = 0x02014b50;
inline constexpr std::uint32_t kEndOfCentral = 0x06054b50;
inline constexpr std::uint32_t kDataDescriptor = 0x08074b50;

inline std::uint32_t read32(const std::uint8_t* p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

inline std::uint16_t read16(const std::uint8_t* p)
{
    return static_cast<std::uint16_t>(p[0] | p[1] << 8);
}

inline void write32(std::uint8_t* p, std::uint32_t v)
{
    for (int i = 0; i < 4; ++i) {
        p[i] = static_cast<std::uint8_t>(v >> (8 * i));
    }
}

// Offset of the end-of-central-directory record (searched backwards, as readers do), or 0.
inline std::size_t findEndOfCentral(const std::uint8_t* data, std::size_t size)
{
    for (std::size_t i = size >= 22 ? size - 22 : 0; i > 0 && size - i < 22 + 65535; --i) {
        if (read32(data + i) == kEndOfCentral) {
            return i;
        }
    }
    return 0;
}

// Writes the CRC-32 of one stored entry (central record at `central`) into its central and
// local headers and its data descriptor; skips it when its headers or sizes do not add up.
inline void fixStoredEntry(std::uint8_t* data, std::size_t size, std::size_t central)
{
    const std::uint8_t* c = data + central;
    const std::size_t length = read32(c + 20);
    const std::size_t local = read32(c + 42);
    if (read16(c + 10) != 0 || length != read32(c + 24) || local > size - 30 ||
        read32(data + local) != kLocalHeader) {
        return;
    }
    const std::uint8_t* l = data + local;
    const std::size_t start = local + 30 + read16(l + 26) + read16(l + 28);
    if (start > size || length > size - start) {
        return;
    }
    const auto crc = static_cast<std::uint32_t>(
        crc32(0, data + start, static_cast<uInt>(length)));
    write32(data + central + 16, crc);
    write32(data + local + 14, crc);
    const std::size_t end = start + length;
    if ((read16(l + 6) & 8) != 0 && end + 8 <= size) {
        write32(data + end + (read32(data + end) == kDataDescriptor ? 4 : 0), crc);
    }
}

// Rewrites the CRC-32 of every stored entry the central directory lists.
inline void fixStoredCrcs(std::uint8_t* data, std::size_t size)
{
    const std::size_t eocd = findEndOfCentral(data, size);
    if (eocd == 0) {
        return;
    }
    std::size_t at = read32(data + eocd + 16);
    for (int n = read16(data + eocd + 10); n > 0 && at + 46 <= eocd; --n) {
        if (read32(data + at) != kCentralHeader) {
            return;
        }
        fixStoredEntry(data, size, at);
        at += 46 + read16(data + at + 28) + read16(data + at + 30) + read16(data + at + 32);
    }
}

} // namespace zip_detail

// libFuzzer's mutation, then (seven mutants in eight) every stored entry's CRC-32 made right.
inline std::size_t mutateKeepingCrcs(std::uint8_t* data, std::size_t size, std::size_t maxSize,
                                     unsigned int seed)
{
    size = LLVMFuzzerMutate(data, size, maxSize);
    if (seed % 8 != 0) { // one mutant in eight keeps its stale CRCs
        zip_detail::fixStoredCrcs(data, size);
    }
    return size;
}

} // namespace fxs::fuzz
