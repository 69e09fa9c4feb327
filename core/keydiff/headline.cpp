#include "core/keydiff/headline.h"

namespace fxs::keydiff {

std::string_view outcomeWord(Outcome o)
{
    switch (o) {
    case Outcome::Hit: return "hit";
    case Outcome::Miss: return "miss";
    case Outcome::Bypass: return "bypass";
    case Outcome::Disabled: return "disabled";
    case Outcome::Fallback: return "fallback";
    }
    return "?";
}

std::string headline(Outcome outcome, std::string_view detail)
{
    return std::string(outcomeWord(outcome)) + ": " + std::string(detail);
}

const ComponentChange* leadingChange(const std::vector<ComponentChange>& changes)
{
    const ComponentChange* first = nullptr;
    for (const auto& c : changes) {
        if (!first || c.rank < first->rank) {
            first = &c;
        }
    }
    return first;
}

std::string countSuffix(std::size_t changes, std::size_t common, CountStyle style)
{
    if (style == CountStyle::PlusMore) {
        return changes > 1 ? " (+" + std::to_string(changes - 1) + " more)" : std::string();
    }
    return " (" + std::to_string(changes) + " of " + std::to_string(changes + common) +
           " components)";
}

std::string changeDetail(const KeyDiff& diff,
                         const std::function<std::string(const ComponentChange&)>& phrase,
                         CountStyle style)
{
    const ComponentChange* first = leadingChange(diff.changes);
    if (!first) {
        return {};
    }
    return phrase(*first) + countSuffix(diff.changes.size(), diff.common, style);
}

} // namespace fxs::keydiff
