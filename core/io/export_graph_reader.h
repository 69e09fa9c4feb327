// INTERNAL to fxscope_io: one serialized torch.export Graph (the top level or a higher-order
// operator's body) → graph IR. Placeholders from the graph inputs, one node per serialized
// node (targets as printed graph code names them, getitem nodes for multi-output results as
// PyTorch's deserializer makes them, a get_attr node per body argument), tensor and symbolic
// metas, stack traces and nn_module_stack. Unknown argument kinds are named and kept as text.
#pragma once

#include "core/graph/graph.h"
#include "core/util/diagnostics.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fxs::io::detail {

using Json = nlohmann::json;

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

// The member `key` of an object, or null (also when j is not an object).
const Json* member(const Json& j, const char* key);
// The string value of member `key`, or "" when absent or not a string.
std::string stringMember(const Json& j, const char* key);

// Reads `graph` (a serialized Graph object) into a graph called `name`. inputNames names
// the inputs that carry no name of their own (constant inputs): the signature's, in order.
// Never throws; problems go to ctx. Null only when the builder rejects the result.
graph::GraphPtr readExportGraph(const Json& graph, const std::string& name,
                                const std::vector<std::string>& inputNames,
                                ExportReadContext& ctx, int depth = 0);

} // namespace fxs::io::detail
