#include "core/runtime/profile_trace.h"

#include <algorithm>
#include <charconv>

namespace fxs::runtime {

std::int64_t ProfileTrace::count(EventKind kind) const
{
    return std::count_if(events.begin(), events.end(),
                         [kind](const TraceEvent& e) { return e.kind == kind; });
}

std::string_view compiledGraphKey(std::string_view name)
{
    static constexpr std::string_view kHead = "## Call CompiledFxGraph ";
    static constexpr std::string_view kTail = " ##";
    if (name.size() <= kHead.size() + kTail.size() || name.substr(0, kHead.size()) != kHead ||
        name.substr(name.size() - kTail.size()) != kTail) {
        return {};
    }
    return name.substr(kHead.size(), name.size() - kHead.size() - kTail.size());
}

int profilerStepNumber(std::string_view name)
{
    static constexpr std::string_view kHead = "ProfilerStep#";
    if (name.substr(0, kHead.size()) != kHead) {
        return -1;
    }
    int n = -1;
    const auto digits = name.substr(kHead.size());
    const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    return r.ec == std::errc() && r.ptr == digits.data() + digits.size() ? n : -1;
}

} // namespace fxs::runtime
