// Guards torch::jit::load against source it cannot survive: LibTorch's TorchScript parser
// recurses once per nested bracket and overflows the stack near 5,000 levels (a segfault, not an
// exception it could throw). This finds such nesting in an archive's code/*.py before LibTorch
// parses it. Not a Python lexer beyond telling brackets from strings and comments.
#pragma once

#include "core/util/result.h"

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

// Scans every `*/code/*.py` entry of a TorchScript archive held in memory (read without a copy;
// each entry capped in size). Errors: Parse when an entry nests past kMaxBracketDepth, its
// message naming the depth, the entry and the line (where = "path!entry:line"); Unsupported
// when a code entry is too large to scan; the entry's read error when it is damaged. An archive
// libzip cannot open passes: torch::jit::load then rejects it in its own words. Throws only
// std::bad_alloc (importTorchScriptBytes turns it into an error).
Status checkCodeNesting(std::string_view archive, const std::string& path);

} // namespace fxs::torchscript
