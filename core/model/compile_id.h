// Identity of one compilation in a TORCH_TRACE run: frame id / frame compile id, with the
// attempt and compiled-autograd id when present. Printed as PyTorch and tlparse print it:
// "0/0", "0/0_1" (attempt 1), "!1/0/0" (compiled autograd 1); after torch._dynamo.reset()
// PyTorch counts frames from 0 again, so a compile of a later session is "0/0 after reset 1".
#pragma once

// <string> before <compare>: Qt 6.4's moc cannot parse <concepts> when it comes first.
#include <optional>
#include <string>
#include <string_view>
#include <compare>
#include <tuple>

namespace fxs::model {

struct CompileId {
    int frameId = -1;
    int frameCompileId = -1;
    int attempt = 0;
    std::optional<int> compiledAutogradId;
    // How many torch._dynamo.reset() calls came before (the reader counts a dynamo_start of a
    // compile id already started as one). Last, so that `CompileId{0, 0}` stays frame 0,
    // compile 0; ids still order by session first (operator<=> below).
    int session = 0;

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
    auto operator<=>(const CompileId& o) const
    {
        return std::tie(session, frameId, frameCompileId, attempt, compiledAutogradId) <=>
               std::tie(o.session, o.frameId, o.frameCompileId, o.attempt, o.compiledAutogradId);
    }
    bool operator==(const CompileId&) const = default;
};

} // namespace fxs::model
