#include "core/explain/component_differ.h"

#include "core/explain/value_summary.h"

#include <algorithm>
#include <array>
#include <unordered_map>

namespace fxs::explain {
namespace {

struct FamilyRank {
    std::string_view family;
    int rank;
};

// See the header for why this order. Families not listed rank kUnknownFamily.
constexpr std::array<FamilyRank, 26> kFamilyRanks{{
    {"inductor_config", 0},
    {"example_inputs", 1},
    {"fx_kwargs", 2},
    {"gm", 3},
    {"aot_config", 4},
    {"grad_enabled", 5},
    {"disable_amp", 5},
    {"deterministic_algorithms", 5},
    {"deterministic_algorithms_settings", 5},
    {"cuda_matmul_settings", 5},
    {"autograd_config", 5},
    {"inputs_to_check", 6},
    {"post_grad_custom_pre_pass", 7},
    {"post_grad_custom_post_pass", 7},
    {"joint_custom_pre_pass", 7},
    {"joint_custom_post_pass", 7},
    {"custom_backend_passes", 7},
    {"_custom_partitioner_fn", 7},
    {"_pre_fusion_custom_pass", 7},
    {"_fuse_ddp_communication_passes", 7},
    {"saved_tensors_hooks_fx_wrap_cache_hashes", 7},
    {"custom_estimator_solver_uuids", 7},
    {"precompile_enabled", 7},
    {"cache_key_tag", 100},
    {"torch_version", 101},
    {"system_info", 102},
}};
constexpr int kUnknownFamily = 8;
constexpr int kFirstEnvironmentRank = 100;

std::string_view familyOf(const model::KeyComponent& c)
{
    if (!c.family.empty()) {
        return c.family;
    }
    const std::string_view name = c.name;
    return name.substr(0, name.find('['));
}

bool sameValue(const model::KeyComponent& a, const model::KeyComponent& b)
{
    if (!a.digest.empty() || !b.digest.empty()) {
        return a.digest == b.digest;
    }
    return a.value == b.value;
}

ComponentChange makeChange(ChangeKind kind, const model::KeyComponent* a,
                           const model::KeyComponent* b, int indexA, int indexB)
{
    const model::KeyComponent& any = a ? *a : *b;
    ComponentChange ch;
    ch.change = kind;
    ch.component = any.name;
    ch.family = std::string(familyOf(any));
    ch.environment = isEnvironmentFamily(ch.family);
    ch.indexA = indexA;
    ch.indexB = indexB;
    if (a) {
        ch.a = displayValue(*a);
        ch.digestA = a->digest;
    }
    if (b) {
        ch.b = displayValue(*b);
        ch.digestB = b->digest;
    }
    switch (kind) {
    case ChangeKind::Changed: ch.summary = describeChange(*a, *b); break;
    case ChangeKind::OnlyA: ch.summary = "only in A: " + ch.a; break;
    case ChangeKind::OnlyB: ch.summary = "only in B: " + ch.b; break;
    }
    return ch;
}

int changeOrder(ChangeKind k)
{
    switch (k) {
    case ChangeKind::Changed: return 0;
    case ChangeKind::OnlyB: return 1;
    case ChangeKind::OnlyA: return 2;
    }
    return 3;
}

void rank(std::vector<ComponentChange>& changes)
{
    std::stable_sort(changes.begin(), changes.end(),
                     [](const ComponentChange& x, const ComponentChange& y) {
                         const int fx = familyPriority(x.family);
                         const int fy = familyPriority(y.family);
                         if (fx != fy) {
                             return fx < fy;
                         }
                         return changeOrder(x.change) < changeOrder(y.change);
                     });
}

} // namespace

int familyPriority(std::string_view family)
{
    for (const auto& fr : kFamilyRanks) {
        if (fr.family == family) {
            return fr.rank;
        }
    }
    return kUnknownFamily;
}

bool isEnvironmentFamily(std::string_view family)
{
    return familyPriority(family) >= kFirstEnvironmentRank;
}

bool ComponentDiff::onlyEnvironment() const
{
    return !changes.empty() &&
           std::all_of(changes.begin(), changes.end(), [](const auto& c) { return c.environment; });
}

ComponentDiff diffComponents(const model::CacheLookup& a, const model::CacheLookup& b)
{
    ComponentDiff diff;
    const auto& ca = a.components;
    const auto& cb = b.components;
    diff.componentsA = ca.size();
    diff.componentsB = cb.size();

    // cursor[name] = the next unmatched occurrence of name in A; nextA chains the occurrences.
    std::vector<int> nextA(ca.size(), -1);
    std::unordered_map<std::string_view, int> cursor;
    cursor.reserve(ca.size());
    for (int i = static_cast<int>(ca.size()) - 1; i >= 0; --i) {
        auto [it, inserted] = cursor.try_emplace(ca[i].name, i);
        if (!inserted) {
            nextA[i] = it->second;
            it->second = i;
        }
    }
    std::vector<char> matchedA(ca.size(), 0);
    for (int j = 0; j < static_cast<int>(cb.size()); ++j) {
        const auto it = cursor.find(cb[j].name);
        if (it == cursor.end() || it->second < 0) {
            diff.changes.push_back(makeChange(ChangeKind::OnlyB, nullptr, &cb[j], -1, j));
            continue;
        }
        const int i = it->second;
        it->second = nextA[i];
        matchedA[i] = 1;
        if (sameValue(ca[i], cb[j])) {
            ++diff.common;
        } else {
            diff.changes.push_back(makeChange(ChangeKind::Changed, &ca[i], &cb[j], i, j));
        }
    }
    for (int i = 0; i < static_cast<int>(ca.size()); ++i) {
        if (!matchedA[i]) {
            diff.changes.push_back(makeChange(ChangeKind::OnlyA, &ca[i], nullptr, i, -1));
        }
    }
    rank(diff.changes);
    return diff;
}

} // namespace fxs::explain
