#include "core/util/pickle_scan.h"

#include <algorithm>
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

// What an opcode does to the container graph (for the depth of nested values).
enum class Shape : std::uint8_t {
    Leaf,      // pushes a scalar, a string, a global, a persistent id: never contains anything
    Container, // pushes a new container or object, holding the values it consumed
    Modify,    // adds the values it consumed to the value below them (APPEND, BUILD, SETITEM)
    Get,       // pushes a memoized value
    Dup,       // pushes the top value again
    Drop,      // drops the values it consumed (POP, POP_MARK) or changes nothing
};

Shape shapeOf(char op)
{
    switch (op) {
    case ']': case ')': case '}': case '\x8f':                     // empty containers
    case 'Q': case '\x85': case 'R': case '\x81': case '\x86':       // BINPERSID ... TUPLE2
    case '\x87': case '\x92': case 't': case 'l': case 'd': case '\x91': case 'o': case 'i':
        return Shape::Container;
    case 'a': case 'b': case 's': case 'e': case 'u': case '\x90': return Shape::Modify;
    case 'g': case 'h': case 'j': return Shape::Get;
    case '2': return Shape::Dup;
    case '0': case '1': case '.': case 'q': case 'r': case 'p': case '\x94': case '\x98':
    case '(': case '\x80': case '\x95':
        return Shape::Drop;
    default: return Shape::Leaf;
    }
}

// A value on the stack or in the memo: 0 for a leaf, otherwise a container node.
using NodeId = std::uint32_t;

class Scanner {
public:
    explicit Scanner(std::string_view s) : m_s(s) {}
    std::optional<PickleFault> run();

private:
    std::size_t skipArgument(std::size_t at);
    bool checkMemo(std::size_t at, std::size_t end, std::uint64_t& slot);
    bool apply(std::size_t at, const Effect& e, std::uint64_t slot);
    bool link(std::size_t at, NodeId parent, std::size_t from);
    void checkDepth();
    void fail(PickleFaultKind kind, std::size_t at, std::uint64_t declared = 0,
              std::size_t left = 0)
    {
        m_fault = PickleFault{kind, at, m_s[at], declared, left};
    }

    std::string_view m_s;
    std::vector<NodeId> m_stack;       // the values on the stack
    std::vector<std::size_t> m_marks;  // the stack size at each open MARK
    std::vector<NodeId> m_memo;        // the value in each memo slot stored so far
    std::vector<std::uint32_t> m_nodeAt{0};                // node -> offset of its opcode
    std::vector<std::pair<NodeId, NodeId>> m_edges;         // parent -> child (containers)
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
// memo to any slot a PUT names. `slot` is the slot named (npos for other opcodes).
bool Scanner::checkMemo(std::size_t at, std::size_t end, std::uint64_t& slot)
{
    const char op = m_s[at];
    slot = std::string_view::npos;
    if (op == '\x94') {
        slot = m_memo.size();
        return true;
    }
    if (op == 'q' || op == 'h' || op == 'r' || op == 'j') {
        slot = readLength(m_s, at + 1, op == 'q' || op == 'h' ? 1 : 4);
    } else if (op == 'p' || op == 'g') {
        slot = 0;
        std::from_chars(m_s.data() + at + 1, m_s.data() + end, slot);
    } else {
        return true;
    }
    const bool put = op == 'q' || op == 'r' || op == 'p';
    if (put ? slot > m_memo.size() : slot >= m_memo.size()) {
        fail(PickleFaultKind::MemoSlot, at, slot, m_memo.size());
        return false;
    }
    return true;
}

// Records that `parent` holds the containers on the stack from index `from` up.
bool Scanner::link(std::size_t at, NodeId parent, std::size_t from)
{
    for (std::size_t i = from; parent != 0 && i < m_stack.size(); ++i) {
        if (m_stack[i] != 0) {
            m_edges.emplace_back(parent, m_stack[i]);
        }
    }
    if (m_edges.size() > kMaxPickleValues) {
        fail(PickleFaultKind::TooMany, at, m_edges.size(), kMaxPickleValues);
        return false;
    }
    return true;
}

bool Scanner::apply(std::size_t at, const Effect& e, std::uint64_t slot)
{
    if (e.mark) {
        m_marks.push_back(m_stack.size());
        return true;
    }
    std::size_t consumed = m_stack.size(); // the values the opcode takes start here
    if (e.toMark) {
        if (m_marks.empty()) {
            fail(PickleFaultKind::NoMark, at);
            return false;
        }
        consumed = m_marks.back();
        m_marks.pop_back();
    }
    const std::size_t floor = m_marks.empty() ? 0 : m_marks.back();
    if (consumed - floor < e.need) { // values below the topmost mark belong to it
        fail(PickleFaultKind::Underflow, at);
        return false;
    }
    consumed -= e.pop;
    const char op = m_s[at];
    const Shape shape = shapeOf(op);
    NodeId pushed = 0;
    if (shape == Shape::Container) {
        if (m_nodeAt.size() > kMaxPickleValues) {
            fail(PickleFaultKind::TooMany, at, m_nodeAt.size(), kMaxPickleValues);
            return false;
        }
        pushed = static_cast<NodeId>(m_nodeAt.size());
        m_nodeAt.push_back(static_cast<std::uint32_t>(at));
        if (!link(at, pushed, consumed)) {
            return false;
        }
    } else if (shape == Shape::Modify && !link(at, m_stack[consumed - 1], consumed)) {
        return false; // APPEND/BUILD/SETITEM(S): need > pop, so a value sits below
    } else if (shape == Shape::Get) {
        pushed = m_memo[slot];
    } else if (shape == Shape::Dup) {
        pushed = m_stack.back();
    } else if (shape == Shape::Drop && slot != std::string_view::npos) {
        if (slot == m_memo.size()) {
            m_memo.push_back(m_stack.back()); // PUT, MEMOIZE: the top value, kept on the stack
        } else {
            m_memo[slot] = m_stack.back();
        }
    }
    m_stack.resize(consumed);
    if (e.push != 0) {
        if (m_stack.size() >= kMaxPickleValues) {
            fail(PickleFaultKind::TooMany, at, m_stack.size() + 1, kMaxPickleValues);
            return false;
        }
        m_stack.push_back(pushed);
    }
    return true;
}

// The longest chain of containers inside each other (a cycle, which LibTorch can build with
// APPEND, counts once), by an iterative walk: LibTorch's own walks of nested values (destroying
// them, typing them) are recursive.
void Scanner::checkDepth()
{
    const std::size_t n = m_nodeAt.size();
    std::sort(m_edges.begin(), m_edges.end());
    std::vector<std::size_t> first(n + 1, 0);
    for (const auto& edge : m_edges) {
        ++first[edge.first + 1];
    }
    for (std::size_t i = 0; i < n; ++i) {
        first[i + 1] += first[i];
    }
    std::vector<std::uint32_t> height(n, 0); // 0: not visited; then 1 + the highest child
    std::vector<bool> open(n, false);
    std::vector<std::pair<NodeId, std::size_t>> walk; // node, next edge to follow
    std::uint32_t deepest = 0;
    NodeId outermost = 0;
    for (NodeId root = 1; root < n; ++root) {
        if (height[root] != 0) {
            continue;
        }
        walk.emplace_back(root, first[root]);
        open[root] = true;
        while (!walk.empty()) {
            auto& [node, next] = walk.back();
            if (next < first[node + 1]) {
                const NodeId child = m_edges[next++].second;
                if (height[child] == 0 && !open[child]) {
                    open[child] = true;
                    walk.emplace_back(child, first[child]);
                }
                continue;
            }
            std::uint32_t h = 1;
            for (std::size_t k = first[node]; k < first[node + 1]; ++k) {
                h = std::max(h, height[m_edges[k].second] + 1); // an open child (cycle) is 0
            }
            height[node] = h;
            open[node] = false;
            if (h > deepest) {
                deepest = h;
                outermost = node;
            }
            walk.pop_back();
        }
    }
    if (deepest > kMaxPickleDepth) {
        const std::size_t at = m_nodeAt[outermost];
        m_fault = PickleFault{PickleFaultKind::TooDeep, at, m_s[at], deepest, kMaxPickleDepth};
    }
}

std::optional<PickleFault> Scanner::run()
{
    for (std::size_t at = 0; at < m_s.size();) {
        const std::size_t next = skipArgument(at);
        std::uint64_t slot = 0;
        if (next == m_s.npos || !checkMemo(at, next, slot) ||
            !apply(at, kOps[static_cast<unsigned char>(m_s[at])].effect, slot) ||
            m_s[at] == '.') {
            break;
        }
        at = next;
    }
    if (!m_fault) {
        checkDepth();
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
    case PickleFaultKind::TooDeep:
        return text + " starts values nested " + std::to_string(fault.declared) +
               " deep (more than " + std::to_string(fault.left) + ")";
    case PickleFaultKind::TooMany:
        return text + " makes more than " + std::to_string(fault.left) +
               " values, containers or links";
    case PickleFaultKind::MemoSlot:
        return text + " names memo slot " + std::to_string(fault.declared) + ", past the " +
               std::to_string(fault.left) + " stored";
    }
    return text;
}

} // namespace fxs
