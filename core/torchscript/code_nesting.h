// Guards torch::jit::load against source it cannot survive: LibTorch's TorchScript parser
// recurses once per nested bracket and overflows the stack near 5,000 levels (a segfault, not an
// exception it could throw). This finds such nesting in an archive's code/*.py before LibTorch
// parses it (archive_check runs it on every code entry). Not a Python lexer beyond telling
// brackets from strings and comments.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fxs::torchscript {

// Deepest bracket nesting accepted. TorchScript's printer stops inlining an expression once its
// line reaches about 40 characters (python_print.cpp, isLongLine), so the code it saves nests a
// handful of levels; 256 is far above that and far below the ~5,000 that overflow the stack.
inline constexpr int kMaxBracketDepth = 256;

struct DeepNesting {
    int line = 0;  // 1-based line where the nesting first went past the cap
    int depth = 0; // the deepest nesting in the whole source
};

// Counts ( [ { against ) ] } outside string literals (quoted, triple-quoted) and # comments.
// nullopt when the nesting never exceeds cap.
std::optional<DeepNesting> findDeepNesting(std::string_view source, int cap = kMaxBracketDepth);

} // namespace fxs::torchscript
