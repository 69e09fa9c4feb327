// Reads the JSON of a serialized torch.export ExportedProgram (a `.pt2` archive's
// `models/<name>.json`, or `serialized_exported_program.json` of older archives): schema
// version (major 8: PyTorch 2.6–2.11; others are an error, and what can be read is still read),
// graph with its higher-order bodies, signature, range constraints and symbol hints. The
// archive around it is pt2_reader's; weights are not here. Fuzzed (tests/fuzz/fuzz_export_json).
#pragma once

#include "core/graph/graph.h"
#include "core/model/exported_program.h"
#include "core/util/diagnostics.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace fxs::io {

inline constexpr int kExportSchemaMajor = 8;
inline constexpr int kExportSchemaNewestMinor = 17; // PyTorch 2.11

struct ExportJsonResult {
    graph::GraphPtr graph;          // null when no graph could be built
    model::ExportedProgram program; // versions, signature, ranges, hints (no weights)
    Diagnostics diagnostics;        // located at `where`, line 0
};

// Bytes readable after a program's text for readPaddedProgramJson (simdjson's padding).
inline constexpr std::size_t kProgramJsonPadding = 64;

// where: how diagnostics name the JSON ("a.pt2!mlp/models/model.json"). Never throws. The
// program is read piece by piece (one node's DOM at a time); memory is the text, its pieces'
// offsets and the graph. Text that is not JSON (nested deeper than 200, cut short, ...) gives
// json_parse's errors (with the byte) and no graph. Copies the text once (padding).
ExportJsonResult readExportedProgramJson(std::string_view json, const std::string& where);
// The same without the copy: json.data() has `capacity` readable bytes, at least json.size()
// + kProgramJsonPadding.
ExportJsonResult readPaddedProgramJson(std::string_view json, std::size_t capacity,
                                       const std::string& where);

} // namespace fxs::io
