// Module paths spelled by graph names: Dynamo's mangled source names of parameters, buffers and
// module attributes (`L_self_modules_layers_modules_0_modules_attn_parameters_weight_`) and the
// dotted targets of call_module/get_attr nodes (`layers.0.attn.weight`). Text only; which
// module a node belongs to is node_assignment's business.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fxs::structure {

enum class AttrKind : std::uint8_t { Parameter, Buffer, Attribute };

struct ParamPath {
    std::string module; // "model.layers.0.attn"; "" for an attribute of the root module
    std::string attr;   // "weight"
    AttrKind kind = AttrKind::Parameter;

    std::string path() const; // "model.layers.0.attn.weight"
};

// A Dynamo source name of a module's parameter or buffer: `L_` or `G_` (either case), the root
// local, then `_modules_<name>` per submodule and `_parameters_<attr>_` or `_buffers_<attr>_`.
// The root is dropped when it is `self` (the compiled module) and kept as the first path
// component otherwise (`L_model_modules_fc_parameters_weight_` -> model.fc.weight).
// Numeric indexes stay components ("layers.3"); names keep their underscores
// ("embed_tokens"). Nullopt for anything else: plain inputs (`L_x_`), names without the
// prefix, or a separator with nothing after it. A submodule whose own name contains
// `_modules_` cannot be told from two levels; the first reading wins.
std::optional<ParamPath> parseDynamoName(std::string_view name);

// A dotted get_attr target that names a parameter of a submodule ("layers.3.attn.weight" ->
// module "layers.3.attn", attr "weight", kind Attribute). Nullopt for a name without a dot or
// with an empty component (HOP bodies such as "fwd_body_0" have no module path).
std::optional<ParamPath> parseDottedTarget(std::string_view target);

// A call_module target's module path ("layers.3.attn" stays as is); nullopt when it is not a
// dotted identifier path.
std::optional<std::string> modulePathOfTarget(std::string_view target);

// The parent path ("a.b.c" -> "a.b"; "a" -> "").
std::string_view parentPath(std::string_view path);

} // namespace fxs::structure
