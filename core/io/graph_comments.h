// Readers for the comments printed graph code carries: `# File: path:line in fn, code: src`,
// `# Annotation: {...} File: ...`, `# No stacktrace found for following nodes` and AOT tags such
// as `# PlainAOTInput(idx=0)`. Pure string functions; internal to fxscope_io.
#pragma once

#include "core/graph/node.h"

#include <optional>
#include <string_view>

namespace fxs::io::detail {

enum class CommentKind : std::uint8_t { Source, NoStacktrace, Other };

struct SourceComment {
    CommentKind kind = CommentKind::Other;
    graph::SourceLoc source;                      // Source: may be unknown when only annotated
    std::optional<graph::Annotation> annotation;  // Source: `# Annotation: {...}` prefix
};

// text: the comment without its leading '#', trimmed.
SourceComment parseSourceComment(std::string_view text);
// `PlainAOTInput(idx=0)` -> {kind, text, idx}; nullopt when it does not look like Name(...).
std::optional<graph::AotTag> parseAotTag(std::string_view text);
// Splits a printed dict `{'a': 0, 'b': {'c': 1}}` into (key, value text) pairs; false when the
// text is not a dict of string keys.
bool parseDictEntries(std::string_view dict, std::vector<std::pair<std::string, std::string>>& out);
// Length of the balanced {...} / (...) / [...] group starting at text[0], honouring quotes;
// npos when unbalanced.
std::size_t balancedLength(std::string_view text);

} // namespace fxs::io::detail
