// INTERNAL to fxscope_io: one pass over a serialized ExportedProgram's text (simdjson On
// Demand, no DOM) that cuts it into pieces: the top-level graph's nodes and tensor metas one
// by one, every other member whole. The readers then parse one piece at a time, so a
// million-node program never has a DOM of more than one node (issue 31: a 1M-node `.pt2` took
// 45 s and 3.2 GB to inspect). Checks that the text is one JSON object; not the schema.
#pragma once

#include "core/io/export_graph_reader.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fxs::io::detail {

struct ExportProgramText {
    bool isObject = false; // the text is a JSON object (else nothing below is filled)
    // Members of the root and of graph_module (the latter without "graph"), in order; a later
    // member of the same name replaces an earlier one.
    std::vector<std::pair<std::string, std::string_view>> root;
    std::vector<std::pair<std::string, std::string_view>> graphModule;
    bool hasGraphModule = false;
    bool hasGraph = false; // graph_module.graph
    ExportGraphText graph;
};

// text must have simdjson::SIMDJSON_PADDING readable bytes after it (capacity). The pieces
// are views into text. Errors: simdjson's message when the text is not one JSON value (the
// caller finds where with a slower validating parser).
struct SplitResult {
    ExportProgramText program;
    std::string error; // "" when the text was cut into pieces (or is not an object)
};
SplitResult splitProgramText(std::string_view text, std::size_t capacity);

} // namespace fxs::io::detail
