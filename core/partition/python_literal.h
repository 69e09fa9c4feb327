// Python literals as printed in `# Annotation: {...}` comments, turned into JSON text so that
// regions, projects and plans carry annotation values in one portable form. Only literals
// (dict, list, tuple, str, int, float, True/False/None); not a Python expression evaluator.
#pragma once

#include "core/graph/node.h"

#include <optional>
#include <string>
#include <string_view>

namespace fxs::partition {

// "{'compile_with_inductor': 0}" -> {"compile_with_inductor":0} (compact JSON; tuples become
// arrays, non-string dict keys their text). nullopt when the text is not such a literal.
std::optional<std::string> pythonLiteralToJson(std::string_view text);

// The annotation as a JSON object: every entry's value converted, or kept as a JSON string
// when it is not a literal.
std::string annotationToJson(const graph::Annotation& annotation);

// The value of `key` in the annotation as JSON text, or nullopt when the key is absent.
std::optional<std::string> annotationValueJson(const graph::Annotation& annotation,
                                               std::string_view key);

} // namespace fxs::partition
