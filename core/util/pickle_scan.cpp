#include "core/util/pickle_scan.h"

#include <array>
#include <charconv>
#include <cstdio>
#include <string_view>
#include <vector>

namespace fxs {
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

// What an opcode does to the stack: values it needs and pops, values it pushes; or it pushes a
// mark, or pops back to the topmost mark (needing `need` values below it).
struct Effect {
    std::uint8_t need = 0;
    std::uint8_t pop = 0;
    std::uint8_t push = 0;
    bool mark = false;
    bool toMark = false;
};

struct OpInfo {
    Arg arg = Arg::Unknown;
    std::uint8_t size = 0;
    Effect effect;
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

struct Effects {
    std::string_view ops;
    Effect effect;
};

// Stack effects by opcode (pickletools' stack_before/stack_after; the memo checks are apart).
constexpr Effects kEffects[] = {
    // push one value: literals, empty containers, GLOBAL, GET, EXT, NEXT_BUFFER, PERSID
    {"NILFSVP])}\x88\x89\x8f"
     "chjgKMJGXBCTU\x8a\x8b\x8c\x8d\x8e\x96\x82\x83\x84\x97",
     {0, 0, 1}},
    {".qrp\x94\x98", {1, 0, 0}},      // STOP, PUTs, MEMOIZE, READONLY_BUFFER: need a value
    {"0", {1, 1, 0}},                 // POP
    {"2", {1, 0, 1}},                 // DUP
    {"Q\x85", {1, 1, 1}},             // BINPERSID, TUPLE1
    {"R\x81\x86\x93", {2, 2, 1}},     // REDUCE, NEWOBJ, TUPLE2, STACK_GLOBAL
    {"\x87\x92", {3, 3, 1}},          // TUPLE3, NEWOBJ_EX
    {"ab", {2, 1, 0}},                // APPEND, BUILD
    {"s", {3, 2, 0}},                 // SETITEM
    {"(", {0, 0, 0, true}},           // MARK
    {"tld\x91oi", {0, 0, 1, false, true}}, // TUPLE, LIST, DICT, FROZENSET, OBJ, INST
    {"eu\x90", {1, 0, 0, false, true}},    // APPENDS, SETITEMS, ADDITEMS: into the value below
    {"1", {0, 0, 0, false, true}},         // POP_MARK
};

constexpr std::array<OpInfo, 256> makeTable()
{
    std::array<OpInfo, 256> t{};
    for (const auto& [ops, effect] : kEffects) {
        for (unsigned char op : ops) {
            t[op] = {Arg::None, 0, effect};
        }
    }
    for (const auto& [op, size] : kFixed) {
        t[static_cast<unsigned char>(op)].arg = Arg::Fixed;
        t[static_cast<unsigned char>(op)].size = size;
    }
    for (const auto& [op, size] : kCounted) {
        t[static_cast<unsigned char>(op)].arg = Arg::Counted;
        t[static_cast<unsigned char>(op)].size = size;
    }
    for (unsigned char op : std::string_view("ILFSVPpg")) {
        t[op].arg = Arg::Line;
    }
    t['c'].arg = t['i'].arg = Arg::TwoLines;
    t[0x80].effect = {}; // PROTO
    t[0x95] = {Arg::Frame, 8, {}};
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

class Scanner {
public:
    explicit Scanner(std::string_view s) : m_s(s) {}
    std::optional<PickleFault> run();

private:
    std::size_t skipArgument(std::size_t at);
    bool checkMemo(std::size_t at, std::size_t end);
    bool apply(std::size_t at, const Effect& e);
    void fail(PickleFaultKind kind, std::size_t at, std::uint64_t declared = 0,
              std::size_t left = 0)
    {
        m_fault = PickleFault{kind, at, m_s[at], declared, left};
    }

    std::string_view m_s;
    std::size_t m_depth = 0;           // values on the stack
    std::vector<std::size_t> m_marks;  // the depth at each open MARK
    std::uint64_t m_memo = 0;          // memo slots stored so far
    std::optional<PickleFault> m_fault;
};

// Where the argument of the opcode at `at` ends; npos when the scan stops there: an argument
// that runs past the end (a fault), an unknown opcode, a line without its newline.
std::size_t Scanner::skipArgument(std::size_t at)
{
    const OpInfo op = kOps[static_cast<unsigned char>(m_s[at])];
    const std::size_t start = at + 1;
    const std::size_t left = m_s.size() - start;
    if (op.arg == Arg::Unknown) {
        return m_s.npos;
    }
    if (op.arg == Arg::None) {
        return start;
    }
    if (op.arg == Arg::Line || op.arg == Arg::TwoLines) {
        auto end = m_s.find('\n', start);
        end = op.arg == Arg::TwoLines && end != m_s.npos ? m_s.find('\n', end + 1) : end;
        return end == m_s.npos ? m_s.npos : end + 1;
    }
    if (op.size > left) {
        fail(PickleFaultKind::Overrun, at, op.size, left);
        return m_s.npos;
    }
    // FRAME's length covers opcodes that follow; BINSTRING's -1 reads as 4 GB here.
    const std::uint64_t length = op.arg == Arg::Fixed ? 0 : readLength(m_s, start, op.size);
    if (length > left - op.size) {
        fail(PickleFaultKind::Overrun, at, length, left - op.size);
        return m_s.npos;
    }
    return start + op.size + (op.arg == Arg::Counted ? static_cast<std::size_t>(length) : 0);
}

// PUTs store the next slot (or overwrite one) and GETs read a stored one: LibTorch grows its
// memo to any slot a PUT names.
bool Scanner::checkMemo(std::size_t at, std::size_t end)
{
    const char op = m_s[at];
    if (op == '\x94') {
        ++m_memo;
        return true;
    }
    std::uint64_t slot = 0;
    if (op == 'q' || op == 'h' || op == 'r' || op == 'j') {
        slot = readLength(m_s, at + 1, op == 'q' || op == 'h' ? 1 : 4);
    } else if (op == 'p' || op == 'g') {
        std::from_chars(m_s.data() + at + 1, m_s.data() + end, slot);
    } else {
        return true;
    }
    const bool put = op == 'q' || op == 'r' || op == 'p';
    if (put ? slot > m_memo : slot >= m_memo) {
        fail(PickleFaultKind::MemoSlot, at, slot, m_memo);
        return false;
    }
    m_memo += put && slot == m_memo ? 1 : 0;
    return true;
}

bool Scanner::apply(std::size_t at, const Effect& e)
{
    if (e.mark) {
        m_marks.push_back(m_depth);
        return true;
    }
    if (e.toMark) {
        if (m_marks.empty()) {
            fail(PickleFaultKind::NoMark, at);
            return false;
        }
        m_depth = m_marks.back();
        m_marks.pop_back();
    }
    const std::size_t floor = m_marks.empty() ? 0 : m_marks.back();
    if (m_depth - floor < e.need) { // values below the topmost mark belong to it
        fail(PickleFaultKind::Underflow, at);
        return false;
    }
    m_depth = m_depth - e.pop + e.push;
    return true;
}

std::optional<PickleFault> Scanner::run()
{
    for (std::size_t at = 0; at < m_s.size();) {
        const std::size_t next = skipArgument(at);
        if (next == m_s.npos || !checkMemo(at, next) ||
            !apply(at, kOps[static_cast<unsigned char>(m_s[at])].effect) || m_s[at] == '.') {
            break;
        }
        at = next;
    }
    return m_fault;
}

} // namespace

std::optional<PickleFault> findPickleFault(std::string_view pickle)
{
    return Scanner(pickle).run();
}

std::string describe(const PickleFault& fault)
{
    char opcode[8];
    std::snprintf(opcode, sizeof opcode, "0x%02x", static_cast<unsigned char>(fault.opcode));
    std::string text = std::string("opcode ") + opcode + " at byte " + std::to_string(fault.offset);
    switch (fault.kind) {
    case PickleFaultKind::Overrun:
        return text + " declares " + std::to_string(fault.declared) + " bytes; " +
               std::to_string(fault.left) + " follow";
    case PickleFaultKind::Underflow:
        return text + " takes more values than the stack holds";
    case PickleFaultKind::NoMark:
        return text + " closes a MARK that is not there";
    case PickleFaultKind::MemoSlot:
        return text + " names memo slot " + std::to_string(fault.declared) + ", past the " +
               std::to_string(fault.left) + " stored";
    }
    return text;
}

} // namespace fxs
