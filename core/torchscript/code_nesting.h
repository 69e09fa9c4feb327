// Guards torch::jit::load against source it cannot survive: LibTorch's TorchScript parser
// recurses once per nested bracket and overflows the stack near 5,000 levels, and once per
// operator of a chain (`- - - x`, `not not x`, `a ** a ** a`; left-deep `a + a + a` trees are
// walked recursively by its emitter) near 20,000 (a segfault, not an exception it could
// throw). This finds such nesting in an archive's code/*.py before LibTorch parses it
// (archive_check runs it on every code entry). Not a Python lexer beyond telling brackets,
// operators, names and numbers from strings and comments.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fxs::torchscript {

// Deepest bracket nesting accepted. TorchScript's printer stops inlining an expression once its
// line reaches about 40 characters (python_print.cpp, isLongLine), so the code it saves nests a
// handful of levels; 256 is far above that and far below the ~5,000 that overflow the stack.
inline constexpr int kMaxBracketDepth = 256;

// Deepest expression accepted: brackets plus the operators chained at each bracket level on the
// way in (an upper bound of the depth of the tree LibTorch builds; `,` `:` `=` `;` and the end of
// a statement start a new chain). The printer's short lines chain a few operators; 512 leaves
// the bracket cap its whole room and stays far below what overflows.
inline constexpr int kMaxExpressionDepth = 512;

struct DeepNesting {
    enum class Kind { Brackets, Operators };
    Kind kind = Kind::Brackets;
    int line = 0;  // 1-based line where the nesting first went past the cap
    int depth = 0; // the deepest nesting (of that kind) in the whole source
};

// Counts ( [ { against ) ] } outside string literals (quoted, triple-quoted) and # comments,
// and the operators chained on the way. nullopt when the brackets never nest deeper than cap
// and expressions never deeper than expressionCap; brackets are reported first.
std::optional<DeepNesting> findDeepNesting(std::string_view source, int cap = kMaxBracketDepth,
                                           int expressionCap = kMaxExpressionDepth);

} // namespace fxs::torchscript
