#include "core/torchscript/code_nesting.h"

#include <algorithm>

namespace fxs::torchscript {
namespace {

// Where a string literal starting at i ends (one past its closing quote, or where an unclosed
// one gives up: end of line for single quotes, end of source for triple quotes). Backslashes
// escape the next character, which also holds for raw strings as far as finding the end goes.
std::size_t skipString(std::string_view s, std::size_t i, int& line)
{
    const char quote = s[i];
    const bool triple = s.substr(i, 3) == std::string(3, quote);
    i += triple ? 3 : 1;
    while (i < s.size()) {
        const char c = s[i];
        if (c == '\\' && i + 1 < s.size()) {
            line += s[i + 1] == '\n' ? 1 : 0;
            i += 2;
            continue;
        }
        if (c == '\n' && !triple) {
            return i; // the newline is counted by the caller
        }
        line += c == '\n' ? 1 : 0;
        if (c == quote && (!triple || s.substr(i, 3) == std::string(3, quote))) {
            return i + (triple ? 3 : 1);
        }
        ++i;
    }
    return i;
}

} // namespace

std::optional<DeepNesting> findDeepNesting(std::string_view source, int cap)
{
    DeepNesting found;
    int depth = 0;
    int line = 1;
    for (std::size_t i = 0; i < source.size();) {
        const char c = source[i];
        if (c == '\'' || c == '"') {
            i = skipString(source, i, line);
            continue;
        }
        if (c == '#') {
            i = std::min(source.find('\n', i), source.size());
            continue;
        }
        if (c == '(' || c == '[' || c == '{') {
            found.depth = std::max(found.depth, ++depth);
            found.line = depth > cap && found.line == 0 ? line : found.line;
        } else if (c == ')' || c == ']' || c == '}') {
            depth = std::max(depth - 1, 0); // unbalanced closers are LibTorch's to report
        }
        line += c == '\n' ? 1 : 0;
        ++i;
    }
    return found.line != 0 ? std::optional(found) : std::nullopt;
}

} // namespace fxs::torchscript
