// What a torch.export `.pt2` archive says besides its graph, as plain data: the graph
// signature (which placeholders are user inputs, parameters, buffers, constants; what each
// output is), symbolic-size range constraints, the schema and torch versions, and where each
// weight lives in the archive (read on demand by exec/export_weights). Filled by io/pt2_reader.
#pragma once

#include "core/graph/tensor_meta.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxs::model {

// Persisted in JSON by name (exportInputKindName); never by number.
enum class ExportInputKind : std::uint8_t {
    UserInput,
    Parameter,
    Buffer,
    TensorConstant,
    CustomObj,
    Token,
    ConstantInput,
};

enum class ExportOutputKind : std::uint8_t {
    UserOutput,
    LossOutput,
    BufferMutation,
    GradientToParameter,
    GradientToUserInput,
    UserInputMutation,
    Token,
    ParameterMutation,
};

// "user_input", "parameter", "buffer", "tensor_constant", "custom_obj", "token",
// "constant_input" (the schema's own names).
std::string_view exportInputKindName(ExportInputKind k);
// "user_output", "loss_output", "buffer_mutation", "gradient_to_parameter", ...
std::string_view exportOutputKindName(ExportOutputKind k);

struct ExportInputSpec {
    ExportInputKind kind = ExportInputKind::UserInput;
    std::string name;   // the placeholder ("p_fc1_weight", "x")
    std::string target; // the state-dict name ("fc1.weight"); empty for user inputs
    bool persistent = true; // buffers only
    std::string value;  // constant inputs: the value as Python prints it ("None", "3")
};

struct ExportOutputSpec {
    ExportOutputKind kind = ExportOutputKind::UserOutput;
    std::string name;   // the returned node; empty for a constant output
    std::string target; // mutated buffer/parameter/input, or the gradient's parameter
};

// A symbol's allowed range ("s77" in [2, 64]); an unbounded side is nullopt.
struct RangeConstraint {
    std::string symbol;
    std::optional<std::int64_t> min;
    std::optional<std::int64_t> max;
    bool contains(std::int64_t v) const { return (!min || v >= *min) && (!max || v <= *max); }
};

// One parameter, buffer or tensor constant of the archive (not loaded: see exec/export_weights).
struct ExportWeight {
    std::string fqn;       // "fc1.weight", a constant's name
    std::string entry;     // the zip entry holding it ("mlp/data/weights/weight_0")
    bool constant = false; // from the constants config (not the weights config)
    bool isParam = false;
    // Raw bytes described by `meta` (PyTorch ≥ 2.8), or a torch.save pickle: a whole file
    // holding this tensor, or (legacy archives) a dict of many keyed by fqn.
    bool pickled = false;
    std::optional<graph::TensorMeta> meta; // raw weights: dtype, sizes, strides
    std::int64_t storageOffset = 0;        // raw weights: in elements
};

struct ExportedProgram {
    std::string archivePath;
    std::string modelName;     // "model" for <root>/models/model.json; "" in legacy archives
    std::string layout;        // "pt2" (models/*.json) or "legacy" (serialized_*.json/.pt)
    int schemaMajor = 0;
    int schemaMinor = 0;
    std::string torchVersion;  // "2.11.0+cu130"; "" when the archive does not say
    std::vector<std::string> verifiers; // "TRAINING", ...
    std::vector<ExportInputSpec> inputs;   // in placeholder order
    std::vector<ExportOutputSpec> outputs; // in return order
    std::vector<RangeConstraint> ranges;
    // The example value export traced each symbol with ("s77" -> 8), from the size hints.
    std::map<std::string, std::int64_t> symbolHints;
    std::vector<ExportWeight> weights;
    // The example inputs export traced with (a torch.save of (args, kwargs)); "" when absent.
    std::string sampleInputsEntry;

    const ExportInputSpec* input(std::string_view placeholder) const;
    const RangeConstraint* range(std::string_view symbol) const;
    const ExportWeight* weight(std::string_view fqn) const;
};

} // namespace fxs::model
