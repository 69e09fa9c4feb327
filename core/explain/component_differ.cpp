#include "core/explain/component_differ.h"

#include "core/explain/value_summary.h"

#include <algorithm>
#include <array>

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

// The lookups' describer: values as value_summary shows them (pickles by digest, graph code
// by line count, TensorMetadata field by field); environment families marked.
void describeLookupChange(ComponentChange& ch, const model::CacheLookup& a,
                          const model::CacheLookup& b)
{
    const model::KeyComponent* ca = ch.indexA >= 0 ? &a.components[ch.indexA] : nullptr;
    const model::KeyComponent* cb = ch.indexB >= 0 ? &b.components[ch.indexB] : nullptr;
    ch.environment = isEnvironmentFamily(ch.family);
    if (ca) {
        ch.a = displayValue(*ca);
    }
    if (cb) {
        ch.b = displayValue(*cb);
    }
    switch (ch.change) {
    case ChangeKind::Changed: ch.summary = describeChange(*ca, *cb); break;
    case ChangeKind::OnlyA: ch.summary = "only in A: " + ch.a; break;
    case ChangeKind::OnlyB: ch.summary = "only in B: " + ch.b; break;
    }
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

std::vector<keydiff::Component> keyComponentsOf(const model::CacheLookup& lookup)
{
    std::vector<keydiff::Component> out;
    out.reserve(lookup.components.size());
    for (const auto& c : lookup.components) {
        out.push_back({c.name, familyOf(c), c.digest, c.value});
    }
    return out;
}

ComponentDiff diffLookups(const model::CacheLookup& a, const model::CacheLookup& b)
{
    keydiff::DiffPolicy policy;
    policy.rank = [](const ComponentChange& c) { return familyPriority(c.family); };
    policy.describe = [&a, &b](ComponentChange& c, const keydiff::Component*,
                               const keydiff::Component*) { describeLookupChange(c, a, b); };
    return keydiff::diffComponents(keyComponentsOf(a), keyComponentsOf(b), policy);
}

} // namespace fxs::explain
