#include "core/torchscript/pickle_lengths.h"

#include <array>
#include <string_view>

namespace fxs::torchscript {
namespace {

// How an opcode's argument is encoded (pickletools' argument descriptors).
enum class Arg : std::uint8_t {
    Unknown,  // not a pickle opcode: the scan stops, LibTorch reports it
    None,     // no argument
    Fixed,    // `size` bytes
    Counted,  // a little-endian length of `size` bytes, then that many bytes
    Frame,    // FRAME: an 8-byte length of the opcodes that follow (they are scanned too)
    Line,     // one newline-terminated argument
    TwoLines, // GLOBAL, INST: module and name lines
};

struct OpInfo {
    Arg arg = Arg::Unknown;
    std::uint8_t size = 0;
};

struct Sized {
    char op;
    std::uint8_t size;
};

// Fixed-size arguments: BININT1/2, BININT, BINFLOAT, BINPUT, LONG_BINPUT, BINGET, LONG_BINGET,
// PROTO, EXT1/2/4.
constexpr Sized kFixed[] = {{'K', 1}, {'M', 2}, {'J', 4}, {'G', 8}, {'q', 1}, {'r', 4},
                            {'h', 1}, {'j', 4}, {'\x80', 1}, {'\x82', 1}, {'\x83', 2},
                            {'\x84', 4}};
// Counted arguments: BINUNICODE, SHORT_BINUNICODE, BINUNICODE8, BINBYTES, SHORT_BINBYTES,
// BINBYTES8, BYTEARRAY8, BINSTRING, SHORT_BINSTRING, LONG1, LONG4 (by the size of their length).
constexpr Sized kCounted[] = {{'X', 4}, {'\x8c', 1}, {'\x8d', 8}, {'B', 4}, {'C', 1},
                              {'\x8e', 8}, {'\x96', 8}, {'T', 4}, {'U', 1}, {'\x8a', 1},
                              {'\x8b', 4}};

constexpr std::array<OpInfo, 256> makeTable()
{
    std::array<OpInfo, 256> t{};
    for (unsigned char op : std::string_view("().012NR]abd}elst)uQo")) {
        t[op] = {Arg::None, 0};
    }
    for (unsigned char op = 0x81; op <= 0x98; ++op) { // protocol 2-5 opcodes without arguments
        t[op] = {Arg::None, 0};
    }
    for (const auto& [op, size] : kFixed) {
        t[static_cast<unsigned char>(op)] = {Arg::Fixed, size};
    }
    for (const auto& [op, size] : kCounted) {
        t[static_cast<unsigned char>(op)] = {Arg::Counted, size};
    }
    for (unsigned char op : std::string_view("ILFSVPpg")) {
        t[op] = {Arg::Line, 0};
    }
    t['c'] = t['i'] = {Arg::TwoLines, 0};
    t[0x95] = {Arg::Frame, 8};
    return t;
}

constexpr auto kOps = makeTable();

std::uint64_t readLength(std::string_view s, std::size_t at, int size)
{
    std::uint64_t v = 0;
    for (int i = size - 1; i >= 0; --i) {
        v = v << 8 | static_cast<unsigned char>(s[at + static_cast<std::size_t>(i)]);
    }
    return v;
}

// Where the argument of the opcode at `at` ends; npos when the scan stops there: an argument
// that runs past the end (`overrun` says how), an unknown opcode, a line without its newline.
std::size_t skipArgument(std::string_view s, std::size_t at, std::optional<PickleOverrun>& overrun)
{
    const OpInfo op = kOps[static_cast<unsigned char>(s[at])];
    const std::size_t start = at + 1;
    const std::size_t left = s.size() - start;
    switch (op.arg) {
    case Arg::Unknown:
        return std::string_view::npos;
    case Arg::None:
        return start;
    case Arg::Line:
    case Arg::TwoLines: {
        auto end = s.find('\n', start);
        end = op.arg == Arg::TwoLines && end != s.npos ? s.find('\n', end + 1) : end;
        return end == s.npos ? s.npos : end + 1;
    }
    case Arg::Fixed:
    case Arg::Counted:
    case Arg::Frame:
        break;
    }
    if (op.size > left) {
        overrun = PickleOverrun{at, s[at], op.size, left};
        return s.npos;
    }
    if (op.arg == Arg::Fixed || op.arg == Arg::Frame) {
        const std::uint64_t frame = op.arg == Arg::Frame ? readLength(s, start, op.size) : 0;
        if (frame > left - op.size) {
            overrun = PickleOverrun{at, s[at], frame, left - op.size};
            return s.npos;
        }
        return start + op.size;
    }
    const std::uint64_t length = readLength(s, start, op.size); // BINSTRING's -1 is 4 GB here
    if (length > left - op.size) {
        overrun = PickleOverrun{at, s[at], length, left - op.size};
        return s.npos;
    }
    return start + op.size + static_cast<std::size_t>(length);
}

} // namespace

std::optional<PickleOverrun> findPickleOverrun(std::string_view pickle)
{
    std::optional<PickleOverrun> overrun;
    for (std::size_t at = 0; at < pickle.size() && pickle[at] != '.';) {
        at = skipArgument(pickle, at, overrun);
    }
    return overrun;
}

} // namespace fxs::torchscript
