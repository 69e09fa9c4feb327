#include "core/torchscript/code_nesting.h"

#include "core/io/zip_archive.h"

#include <algorithm>

namespace fxs::torchscript {
namespace {

// Generated code for a large model runs to a few megabytes per class; far larger is not a
// module torch saved, and scanning it would only cost memory.
constexpr std::uint64_t kMaxCodeEntryBytes = 256ull << 20;

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

bool isCode(const std::string& name)
{
    const bool inCode = name.rfind("code/", 0) == 0 || name.find("/code/") != std::string::npos;
    return inCode && name.size() > 3 && name.compare(name.size() - 3, 3, ".py") == 0;
}

// The entry and line are in the message too: io::loadPaths reports a loader's error at the
// file, not at its `where`.
Error tooDeep(const std::string& path, const std::string& entry, const DeepNesting& deep)
{
    const std::string at = entry + ":" + std::to_string(deep.line);
    Error e = makeError(ErrorCode::Parse,
                        "brackets nest " + std::to_string(deep.depth) + " deep (more than " +
                            std::to_string(kMaxBracketDepth) + ") at " + at,
                        path + "!" + at);
    e.expected = "code as torch.jit.save writes it (a few levels deep)";
    return e;
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

Status checkCodeNesting(std::string_view archive, const std::string& path)
{
    auto zip = io::ZipArchive::fromView(archive, path);
    if (!zip.ok()) {
        return {};
    }
    for (const auto& name : zip->names()) {
        if (!isCode(name)) {
            continue;
        }
        auto source = zip->read(name, kMaxCodeEntryBytes);
        if (!source.ok()) {
            return source.error();
        }
        if (auto deep = findDeepNesting(*source)) {
            return tooDeep(path, name, *deep);
        }
    }
    return {};
}

} // namespace fxs::torchscript
