#include "core/cache/cache_explain.h"

#include "core/keydiff/field_diff.h"
#include "core/keydiff/headline.h"
#include "core/keydiff/nearest_entry.h"
#include "core/util/strings.h"

#include <algorithm>
#include <cmath>

namespace fxs::cache {
namespace {

// First differing line of multi-line texts, for the headline of a region change.
std::string firstDifferentLine(const std::string& a, const std::string& b)
{
    const auto la = split(a, '\n');
    const auto lb = split(b, '\n');
    for (std::size_t i = 0; i < std::max(la.size(), lb.size()); ++i) {
        const std::string_view x = i < la.size() ? la[i] : std::string_view("<none>");
        const std::string_view y = i < lb.size() ? lb[i] : std::string_view("<none>");
        if (x != y) {
            return "line " + std::to_string(i + 1) + ": " + std::string(x) + " → " +
                   std::string(y);
        }
    }
    return {};
}

// "input[0]" -> "input 0"; other labels unchanged.
std::string labelWords(const std::string& label)
{
    const auto open = label.find('[');
    if (open == std::string::npos || label.back() != ']') {
        return label;
    }
    return label.substr(0, open) + " " + label.substr(open + 1, label.size() - open - 2);
}

// The region key's rank table: inputs say most to a user, the region graph least (its text
// is long); everything else between.
int headlineRank(const ComponentChange& c)
{
    return startsWith(c.component, "input") ? 0 : c.component == kLabelRegion ? 2 : 1;
}

// The region key's describer: texts verbatim, "k=v;k=v" texts by their first differing field.
void describe(ComponentChange& c, const keydiff::Component* a, const keydiff::Component* b)
{
    if (a) {
        c.a = std::string(a->text);
    }
    if (b) {
        c.b = std::string(b->text);
    }
    if (c.change == ChangeKind::Changed) {
        const auto fields =
            keydiff::diffFields(c.a, c.b, keydiff::fieldStrategyOf(c.a, c.b));
        if (!fields.empty()) {
            c.field = fields.front().field;
            c.a = fields.front().a;
            c.b = fields.front().b;
        }
    }
    c.summary = describeChange(c);
}

keydiff::KeyDiff diff(const std::vector<KeyComponent>& before,
                      const std::vector<KeyComponent>& after)
{
    keydiff::DiffPolicy policy;
    policy.rank = headlineRank;
    policy.describe = describe;
    policy.order = keydiff::ChangeOrder::Label;
    keydiff::KeyDiff d =
        keydiff::diffComponents(keyComponentsOf(before), keyComponentsOf(after), policy);
    // The source's digest follows from the other components: when one of them changed too, it
    // explains the miss and the source is not counted as a change of its own. A source that
    // changed alone (a printer changed without a salt bump) stays the one change shown.
    if (d.changes.size() > 1) {
        std::erase_if(d.changes,
                      [](const ComponentChange& c) { return c.component == kLabelSource; });
    }
    return d;
}

// Entries of the wanted region when there are any, else all.
std::vector<const EntryInfo*> pool(const std::string& region,
                                   const std::vector<EntryInfo>& candidates)
{
    std::vector<const EntryInfo*> same;
    std::vector<const EntryInfo*> all;
    for (const auto& e : candidates) {
        all.push_back(&e);
        if (e.regionDigest == region) {
            same.push_back(&e);
        }
    }
    return same.empty() ? all : same;
}

} // namespace

std::vector<keydiff::Component> keyComponentsOf(const std::vector<KeyComponent>& components)
{
    std::vector<keydiff::Component> out;
    out.reserve(components.size());
    for (const auto& c : components) {
        out.push_back({c.label, {}, c.digest, c.text});
    }
    return out;
}

std::vector<ComponentChange> diffKeys(const std::vector<KeyComponent>& before,
                                      const std::vector<KeyComponent>& after)
{
    return diff(before, after).changes;
}

std::string describeChange(const ComponentChange& c)
{
    const std::string what = labelWords(c.component);
    switch (c.change) {
    case ChangeKind::OnlyB: return what + " added";
    case ChangeKind::OnlyA: return what + " removed";
    case ChangeKind::Changed: break;
    }
    if (!c.field.empty()) {
        return what + " " + c.field + " " + c.a + " → " + c.b;
    }
    if (c.component == kLabelRegion) {
        return "region graph changed (" + firstDifferentLine(c.a, c.b) + ")";
    }
    const bool shortValues = c.a.size() <= 40 && c.b.size() <= 40 &&
                             c.a.find('\n') == std::string::npos &&
                             c.b.find('\n') == std::string::npos;
    return shortValues ? what + " " + c.a + " → " + c.b : what + " changed";
}

MissExplanation explainMiss(const std::vector<KeyComponent>& wanted,
                            const std::vector<EntryInfo>& candidates)
{
    MissExplanation m;
    const std::vector<const EntryInfo*> entries = pool(regionDigest(wanted), candidates);
    std::vector<std::vector<keydiff::Component>> keys;
    keys.reserve(entries.size());
    std::vector<keydiff::Candidate> near;
    near.reserve(entries.size());
    for (const EntryInfo* e : entries) {
        keys.push_back(keyComponentsOf(e->components));
        near.push_back({keys.back(), e->lastHitMs});
    }
    const keydiff::Nearest nearest = keydiff::nearestEntry(keyComponentsOf(wanted), near);
    if (!nearest.index) {
        m.headline = keydiff::headline(keydiff::Outcome::Miss,
                                       "cold (no cache entry to compare with)");
        return m;
    }
    const EntryInfo& best = *entries[*nearest.index];
    m.cold = false;
    m.sameRegion = best.regionDigest == regionDigest(wanted);
    m.nearestKey = best.key;
    const keydiff::KeyDiff d = diff(best.components, wanted);
    m.commonComponents = static_cast<int>(d.common);
    m.changes = d.changes;
    if (m.changes.empty()) {
        m.headline = keydiff::headline(keydiff::Outcome::Miss,
                                       "entry " + best.key.substr(0, 12) +
                                           " has the same components");
        return m;
    }
    m.headline = keydiff::headline(
        keydiff::Outcome::Miss,
        keydiff::changeDetail(d, describeChange, keydiff::CountStyle::PlusMore));
    return m;
}

Result<MissExplanation> explainMiss(CacheStore& store, const std::vector<KeyComponent>& wanted)
{
    auto same = store.entriesOfRegion(regionDigest(wanted));
    if (!same) {
        return same.error();
    }
    if (!same->empty()) {
        return explainMiss(wanted, *same);
    }
    auto all = store.list();
    if (!all) {
        return all.error();
    }
    return explainMiss(wanted, *all);
}

std::string hitHeadline(const EntryInfo& e)
{
    return headline(Reason::Hit,
                    "entry " + e.key.substr(0, 12) + " (" +
                        std::string(entryStatusName(e.status)) + ", hit " +
                        std::to_string(e.hitCount + 1) + "×, saves " +
                        std::to_string(static_cast<long long>(std::llround(e.compileMs))) +
                        " ms of compile)");
}

std::string remoteHitHeadline(const EntryInfo& e, const std::string& url)
{
    return headline(Reason::RemoteHit,
                    "remote hit (" + url + "), entry " + e.key.substr(0, 12) + " (" +
                        std::string(entryStatusName(e.status)) + ", saves " +
                        std::to_string(static_cast<long long>(std::llround(e.compileMs))) +
                        " ms of compile)");
}

} // namespace fxs::cache
