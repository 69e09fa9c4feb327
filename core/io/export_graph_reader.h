// INTERNAL to fxscope_io: one serialized torch.export Graph (the top level or a higher-order
// operator's body) → graph IR. Placeholders from the graph inputs, one node per serialized
// node (targets as printed graph code names them, getitem nodes for multi-output results as
// PyTorch's deserializer makes them, a get_attr node per body argument), tensor and symbolic
// metas, stack traces and nn_module_stack. Unknown argument kinds are named and kept as text.
// The top-level graph is read piece by piece (one node's DOM at a time, ExportGraphText).
#pragma once

#include "core/graph/graph.h"
#include "core/io/export_json.h"
#include "core/util/diagnostics.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fxs::io::detail {

// Shared by the readers of one archive entry: where problems go (capped), what was learnt.
struct ExportReadContext {
    Diagnostics& diagnostics;
    std::string where;                          // "a.pt2!m/models/model.json"
    std::map<std::string, std::int64_t> hints; // symbol -> traced value, from size hints
    int problems = 0;

    // Records an error (the first kMaxProblems; then one "and N more" line at the end).
    void problem(std::string message, std::string expected = {}, std::string found = {});
    void finish();
};

inline constexpr int kMaxProblems = 50;
inline constexpr int kMaxBodyDepth = 32; // higher-order bodies nested deeper are not read

// A serialized Graph object's members as pieces of the program's text (views into it), so that
// only one piece's DOM lives at a time. Every piece was checked to be one JSON value by the
// caller's pass over the whole text; a piece that still fails to parse makes the read fail.
struct ExportGraphText {
    bool isObject = false;                // the graph member was an object
    std::vector<std::string_view> nodes;  // one per node, in order
    bool hasNodes = false;                // "nodes" was an array
    std::vector<std::pair<std::string, std::string_view>> tensorValues; // name -> TensorMeta
    std::vector<std::pair<std::string, std::string_view>> symValues; // "sym_int_values" -> {}
    std::string_view inputs;  // "" when absent
    std::string_view outputs; // "" when absent
    std::string_view whole;   // the graph's text, for messages
    bool paddedAfter = false; // simdjson's padding is readable after every piece
};

// Reads `graph` (a serialized Graph object) into a graph called `name`. inputNames names
// the inputs that carry no name of their own (constant inputs): the signature's, in order.
// Never throws; problems go to ctx. Null only when the builder rejects the result.
graph::GraphPtr readExportGraph(const JsonValue& graph, const std::string& name,
                                const std::vector<std::string>& inputNames,
                                ExportReadContext& ctx, int depth = 0);

// The same for a graph given as pieces. pieceError is set (simdjson's message) when a piece
// is not JSON after all; the graph is then null.
graph::GraphPtr readExportGraphText(const ExportGraphText& graph, const std::string& name,
                                    const std::vector<std::string>& inputNames,
                                    ExportReadContext& ctx, std::string& pieceError);

} // namespace fxs::io::detail
