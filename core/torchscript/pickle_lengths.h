// Guards torch::jit::load against pickles that promise more bytes than they hold: LibTorch
// 1.13's Unpickler reserves a string's declared length before reading it, so a 10 KB archive
// whose data.pkl declares a 4 GB string allocates 4 GB (found by fuzz_torchscript). This walks
// the opcodes of a pickle (protocols 0-5) and checks every length-prefixed argument against the
// bytes left. Not an unpickler: it stops at STOP or at an opcode it does not know, and leaves
// everything else (stack, memo, types) to LibTorch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace fxs::torchscript {

struct PickleOverrun {
    std::size_t offset = 0;    // where the opcode is
    char opcode = 0;           // 'X' (BINUNICODE), 'B' (BINBYTES), '\x95' (FRAME), ...
    std::uint64_t declared = 0; // the length it declares
    std::size_t left = 0;       // the bytes that follow its length field
};

// The first length-prefixed argument (strings, bytes, long integers, frames) that runs past
// the end of `pickle`, or a fixed-size argument cut off by it; nullopt when there is none.
std::optional<PickleOverrun> findPickleOverrun(std::string_view pickle);

} // namespace fxs::torchscript
