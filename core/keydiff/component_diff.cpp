#include "core/keydiff/component_diff.h"

#include "core/keydiff/field_diff.h"
#include "core/util/strings.h"

#include <algorithm>
#include <unordered_map>

namespace fxs::keydiff {
namespace {

int changeOrder(ChangeKind k)
{
    switch (k) {
    case ChangeKind::Changed: return 0;
    case ChangeKind::OnlyB: return 1;
    case ChangeKind::OnlyA: return 2;
    }
    return 3;
}

ComponentChange makeChange(ChangeKind kind, const Component* a, const Component* b,
                           const ComponentPair& p, const DiffPolicy& policy)
{
    const Component& any = a ? *a : *b;
    ComponentChange ch;
    ch.change = kind;
    ch.component = std::string(any.label);
    ch.family = std::string(any.family);
    ch.indexA = p.a;
    ch.indexB = p.b;
    if (a) {
        ch.digestA = std::string(a->digest);
    }
    if (b) {
        ch.digestB = std::string(b->digest);
    }
    if (policy.describe) {
        policy.describe(ch, a, b);
    } else {
        describeText(ch, a, b);
    }
    ch.rank = policy.rank ? policy.rank(ch) : 0;
    return ch;
}

void order(std::vector<ComponentChange>& changes, ChangeOrder how)
{
    if (how == ChangeOrder::Label) {
        std::stable_sort(changes.begin(), changes.end(),
                         [](const auto& x, const auto& y) { return x.component < y.component; });
        return;
    }
    std::stable_sort(changes.begin(), changes.end(), [](const auto& x, const auto& y) {
        if (x.rank != y.rank) {
            return x.rank < y.rank;
        }
        return changeOrder(x.change) < changeOrder(y.change);
    });
}

} // namespace

std::vector<ComponentPair> pairComponents(std::span<const Component> a,
                                          std::span<const Component> b)
{
    // cursor[label] = the next unpaired occurrence of label in A; nextA chains the occurrences.
    std::vector<int> nextA(a.size(), -1);
    std::unordered_map<std::string_view, int> cursor;
    cursor.reserve(a.size());
    for (int i = static_cast<int>(a.size()) - 1; i >= 0; --i) {
        auto [it, inserted] = cursor.try_emplace(a[i].label, i);
        if (!inserted) {
            nextA[i] = it->second;
            it->second = i;
        }
    }
    std::vector<ComponentPair> pairs;
    pairs.reserve(std::max(a.size(), b.size()));
    std::vector<char> pairedA(a.size(), 0);
    for (int j = 0; j < static_cast<int>(b.size()); ++j) {
        const auto it = cursor.find(b[j].label);
        if (it == cursor.end() || it->second < 0) {
            pairs.push_back({-1, j});
            continue;
        }
        const int i = it->second;
        it->second = nextA[i];
        pairedA[i] = 1;
        pairs.push_back({i, j});
    }
    for (int i = 0; i < static_cast<int>(a.size()); ++i) {
        if (!pairedA[i]) {
            pairs.push_back({i, -1});
        }
    }
    return pairs;
}

bool sameValue(const Component& a, const Component& b)
{
    if (!a.digest.empty() || !b.digest.empty()) {
        return a.digest == b.digest;
    }
    return a.text == b.text;
}

bool KeyDiff::onlyEnvironment() const
{
    return !changes.empty() &&
           std::all_of(changes.begin(), changes.end(), [](const auto& c) { return c.environment; });
}

KeyDiff diffComponents(std::span<const Component> a, std::span<const Component> b,
                       const DiffPolicy& policy)
{
    KeyDiff diff;
    diff.componentsA = a.size();
    diff.componentsB = b.size();
    for (const ComponentPair& p : pairComponents(a, b)) {
        const Component* ca = p.a >= 0 ? &a[p.a] : nullptr;
        const Component* cb = p.b >= 0 ? &b[p.b] : nullptr;
        if (ca && cb && sameValue(*ca, *cb)) {
            ++diff.common;
            continue;
        }
        const ChangeKind kind = !ca ? ChangeKind::OnlyB : !cb ? ChangeKind::OnlyA
                                                              : ChangeKind::Changed;
        diff.changes.push_back(makeChange(kind, ca, cb, p, policy));
    }
    order(diff.changes, policy.order);
    return diff;
}

void describeText(ComponentChange& c, const Component* a, const Component* b)
{
    if (a) {
        c.a = std::string(a->text);
    }
    if (b) {
        c.b = std::string(b->text);
    }
    switch (c.change) {
    case ChangeKind::OnlyA: c.summary = c.component + " removed"; return;
    case ChangeKind::OnlyB: c.summary = c.component + " added"; return;
    case ChangeKind::Changed: break;
    }
    const auto fields = diffFields(c.a, c.b, fieldStrategyOf(c.a, c.b));
    if (!fields.empty()) {
        c.field = fields.front().field;
        c.a = fields.front().a;
        c.b = fields.front().b;
        c.summary = c.component + " " + c.field + " " + c.a + std::string(kChangeArrow) + c.b;
        return;
    }
    c.summary = c.component + " " + c.a + std::string(kChangeArrow) + c.b;
}

} // namespace fxs::keydiff
