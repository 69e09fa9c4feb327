#include "core/cache/cache_explain.h"

#include "core/util/strings.h"

#include <algorithm>
#include <cmath>

namespace fxs::cache {
namespace {

bool isFieldText(const std::string& t)
{
    return t.find('\n') == std::string::npos && t.find('=') != std::string::npos;
}

// First field of "k=v;k=v" texts that differs; false when the texts have other shapes.
bool diffFields(const std::string& a, const std::string& b, ComponentChange& c)
{
    if (!isFieldText(a) || !isFieldText(b)) {
        return false;
    }
    const auto fa = split(a, ';');
    const auto fb = split(b, ';');
    for (std::size_t i = 0; i < std::max(fa.size(), fb.size()); ++i) {
        const std::string_view x = i < fa.size() ? fa[i] : std::string_view();
        const std::string_view y = i < fb.size() ? fb[i] : std::string_view();
        if (x == y) {
            continue;
        }
        const auto ex = x.find('=');
        const auto ey = y.find('=');
        c.field = std::string(ex != std::string_view::npos ? x.substr(0, ex) : y.substr(0, ey));
        c.a = ex != std::string_view::npos ? std::string(x.substr(ex + 1)) : std::string(x);
        c.b = ey != std::string_view::npos ? std::string(y.substr(ey + 1)) : std::string(y);
        return true;
    }
    return false;
}

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

int commonCount(const std::vector<KeyComponent>& a, const std::vector<KeyComponent>& b)
{
    int n = 0;
    for (const auto& c : a) {
        const KeyComponent* o = findComponent(b, c.label);
        n += (o && o->digest == c.digest) ? 1 : 0;
    }
    return n;
}

ComponentChange makeChange(ChangeKind kind, const KeyComponent* a, const KeyComponent* b)
{
    ComponentChange c;
    c.change = kind;
    c.component = a != nullptr ? a->label : b->label;
    if (a != nullptr) {
        c.a = a->text;
        c.digestA = a->digest;
    }
    if (b != nullptr) {
        c.b = b->text;
        c.digestB = b->digest;
    }
    if (kind == ChangeKind::Changed) {
        diffFields(a->text, b->text, c);
    }
    c.summary = describeChange(c);
    return c;
}

} // namespace

std::vector<ComponentChange> diffComponents(const std::vector<KeyComponent>& before,
                                            const std::vector<KeyComponent>& after)
{
    std::vector<ComponentChange> out;
    for (const auto& b : before) {
        const KeyComponent* a = findComponent(after, b.label);
        if (!a) {
            out.push_back(makeChange(ChangeKind::OnlyA, &b, nullptr));
        } else if (a->digest != b.digest) {
            out.push_back(makeChange(ChangeKind::Changed, &b, a));
        }
    }
    for (const auto& a : after) {
        if (!findComponent(before, a.label)) {
            out.push_back(makeChange(ChangeKind::OnlyB, nullptr, &a));
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const auto& x, const auto& y) {
        return x.component < y.component;
    });
    return out;
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
    const std::string region = regionDigest(wanted);
    const EntryInfo* best = nullptr;
    int bestScore = -1;
    for (const auto& e : candidates) {
        // Same region identity dominates; then the number of equal components.
        const int score = (e.regionDigest == region ? 1000 : 0) + commonCount(wanted, e.components);
        if (score > bestScore) {
            best = &e;
            bestScore = score;
        }
    }
    if (!best) {
        m.headline = "miss: cold (no cache entry to compare with)";
        return m;
    }
    m.cold = false;
    m.sameRegion = best->regionDigest == region;
    m.nearestKey = best->key;
    m.commonComponents = commonCount(wanted, best->components);
    m.changes = diffComponents(best->components, wanted);
    if (m.changes.empty()) {
        m.headline = "miss: entry " + best->key.substr(0, 12) + " has the same components";
        return m;
    }
    // Inputs and options say most to a user; put them first in the headline.
    std::vector<const ComponentChange*> order;
    for (const auto& c : m.changes) {
        order.push_back(&c);
    }
    std::stable_sort(order.begin(), order.end(), [](auto* x, auto* y) {
        auto rank = [](const std::string& l) { return startsWith(l, "input") ? 0 : l == kLabelRegion ? 2 : 1; };
        return rank(x->component) < rank(y->component);
    });
    m.headline = "miss: " + describeChange(*order.front());
    if (order.size() > 1) {
        m.headline += " (+" + std::to_string(order.size() - 1) + " more)";
    }
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
    return "hit: entry " + e.key.substr(0, 12) + " (" + std::string(entryStatusName(e.status)) +
           ", hit " + std::to_string(e.hitCount + 1) + "×, saves " +
           std::to_string(static_cast<long long>(std::llround(e.compileMs))) +
           " ms of compile)";
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
