#include "core/keydiff/nearest_entry.h"

#include "core/keydiff/component_diff.h"
#include "core/keydiff/field_diff.h"

#include <algorithm>

namespace fxs::keydiff {

Distance distance(std::span<const Component> a, std::span<const Component> b)
{
    Distance d;
    for (const ComponentPair& p : pairComponents(a, b)) {
        if (p.a < 0 || p.b < 0) {
            ++d.components;
            ++d.fields;
            continue;
        }
        if (sameValue(a[p.a], b[p.b])) {
            ++d.common;
            continue;
        }
        ++d.components;
        // Equal texts under different digests still differ in one (hidden) field.
        d.fields += std::max<std::size_t>(countFieldDifferences(a[p.a].text, b[p.b].text), 1);
    }
    return d;
}

Nearest nearestEntry(std::span<const Component> wanted, std::span<const Candidate> candidates)
{
    Nearest best;
    std::int64_t bestRecency = 0;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        // The stored key is A, the wanted one B, as in the diff that follows.
        const Distance d = distance(candidates[i].components, wanted);
        const std::int64_t recency = candidates[i].recency;
        if (!best.index || d < best.distance || (d == best.distance && recency > bestRecency)) {
            best.index = i;
            best.distance = d;
            bestRecency = recency;
        }
    }
    return best;
}

} // namespace fxs::keydiff
