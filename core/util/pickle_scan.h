// Guards torch::jit::load against pickles that LibTorch 1.13's Unpickler mishandles instead of
// rejecting (found by fuzz_torchscript): it reserves a string's declared length before reading
// it (a 10 KB archive made it allocate 1.6 GB), pops its value and mark stacks without checking
// that they hold anything (undefined behaviour: invalid frees, segfaults), grows its memo to
// whatever index a PUT names, and walks nested values recursively (200,000 nested tuples
// overflow the stack). This walks the opcodes of a pickle (protocols 0-5) and tracks lengths,
// stack depth, marks, memo slots and which containers hold which. Not an unpickler: it stops at
// STOP or at an opcode it does not know, and leaves types, globals and values to LibTorch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fxs {

enum class PickleFaultKind {
    Overrun,   // a length (or a fixed-size argument) runs past the end: declared vs left
    Underflow, // an opcode takes more values than the stack holds
    NoMark,    // an opcode closes a MARK that is not there
    MemoSlot,  // a PUT or GET names a memo slot past those stored so far (declared)
    TooDeep,   // values nest deeper than kMaxPickleDepth (declared: the depth; offset: where
               // the outermost of them is made)
    TooMany,   // more values, containers or links than the scan tracks (declared)
};

// Deepest nesting of containers (tuples, lists, dicts, objects) accepted: Python's pickle
// cannot write deeper than its recursion limit (1,000) either, and LibTorch's recursive walks
// survive far more.
inline constexpr std::uint32_t kMaxPickleDepth = 1000;
// Values on the stack, containers and links tracked for that (4 M each, at most 80 MiB of
// bookkeeping): a module's data.pkl holds a few per parameter.
inline constexpr std::size_t kMaxPickleValues = std::size_t(1) << 22;

struct PickleFault {
    PickleFaultKind kind = PickleFaultKind::Overrun;
    std::size_t offset = 0;     // where the opcode is
    char opcode = 0;            // 'X' (BINUNICODE), 'b' (BUILD), 'q' (BINPUT), ...
    std::uint64_t declared = 0; // Overrun: the length it declares; MemoSlot: the slot;
                                // TooDeep: the depth; TooMany: the count
    std::size_t left = 0;       // Overrun: the bytes after its length field; MemoSlot: slots;
                                // TooDeep, TooMany: the cap
};

// The first fault of `pickle`, nullopt when there is none. Pickles as Python and LibTorch
// write them (memo slots numbered in order) have none.
std::optional<PickleFault> findPickleFault(std::string_view pickle);

// "opcode 0x58 at byte 23 declares 2147483647 bytes; 506 follow" and the like.
std::string describe(const PickleFault& fault);

} // namespace fxs
