// INTERNAL to fxscope_io: the leaves of torch.export's serialized schema → graph IR: tensor
// metas (ScalarType numbers, symbolic sizes with their hints), literal argument kinds (dtype,
// layout, memory format, device, complex, operator), and node metadata (the innermost stack
// frame, nn_module_stack, `custom` annotations). Everything tolerates malformed JSON values.
#pragma once

#include "core/graph/argument.h"
#include "core/graph/node.h"
#include "core/io/export_json.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::io::detail {

// ScalarType numbers of the schema (7 = FLOAT, 5 = LONG, ...); nullopt for unknown ones.
std::optional<graph::DType> dtypeOfScalarType(std::int64_t scalarType);

// A serialized TensorMeta; nullopt when dtype or sizes are missing or malformed. Symbols
// found with an integer hint are recorded in hints ("s77" -> 8).
std::optional<graph::TensorMeta> tensorMetaOf(const JsonValue& meta,
                                              std::map<std::string, std::int64_t>& hints);
// "s77" for {"as_expr": {"expr_str": "Symbol('s77', ...)"}}, "3" for {"as_int": 3}.
std::string symValueText(const JsonValue& value);
// A float that may be serialized as a string ("Infinity", "-Infinity", "NaN").
double floatOf(const JsonValue& value);
// as_scalar_type, as_memory_format, as_layout, as_device, as_complex, as_operator; nullopt
// for other kinds or malformed values.
std::optional<graph::Argument> constantArgument(std::string_view kind, const JsonValue& value);

// "key,path,type;key,path,type" (commas inside brackets belong to the path).
std::vector<graph::ModuleFrame> parseModuleStack(std::string_view text);
// The innermost frame of a Python stack trace (`File "p", line N, in fn\n    code`).
graph::SourceLoc innermostFrame(std::string_view stackTrace);
// stack_trace, nn_module_stack and custom (a JSON dict, as an Annotation) onto node.
void applyMetadata(const JsonValue& metadata, graph::Node& node);

} // namespace fxs::io::detail
