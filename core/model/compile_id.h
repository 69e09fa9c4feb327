// Identity of one compilation in a TORCH_TRACE run: frame id / frame compile id, with the
// attempt and compiled-autograd id when present. Printed as PyTorch and tlparse print it:
// "0/0", "0/0_1" (attempt 1), "!1/0/0" (compiled autograd 1).
#pragma once

// <string> before <compare>: Qt 6.4's moc cannot parse <concepts> when it comes first.
#include <optional>
#include <string>
#include <string_view>
#include <compare>

namespace fxs::model {

struct CompileId {
    int frameId = -1;
    int frameCompileId = -1;
    int attempt = 0;
    std::optional<int> compiledAutogradId;

    bool valid() const { return frameId >= 0 && frameCompileId >= 0; }
    // The compile without Dynamo's restart attempt ("0/0_1" → "0/0"): frames, recompiles and
    // graph breaks are about compiles, not about the restarts within one.
    CompileId withoutAttempt() const
    {
        CompileId id = *this;
        id.attempt = 0;
        return id;
    }
    std::string toString() const; // "" when !valid()
    static std::optional<CompileId> parse(std::string_view text);
    auto operator<=>(const CompileId&) const = default;
};

} // namespace fxs::model
