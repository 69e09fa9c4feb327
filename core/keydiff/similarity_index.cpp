#include "core/keydiff/similarity_index.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <string_view>

namespace fxs::keydiff {
namespace {

std::uint64_t componentHash(const Component& c)
{
    const std::uint64_t hn = std::hash<std::string_view>{}(c.label);
    const std::uint64_t hv = std::hash<std::string_view>{}(c.digest.empty() ? c.text : c.digest);
    return (hn * 0x9E3779B97F4A7C15ull) ^ (hv + 0x7F4A7C159E3779B9ull + (hn << 6) + (hn >> 2));
}

std::vector<std::uint64_t> componentHashes(std::span<const Component> key)
{
    std::vector<std::uint64_t> hs;
    hs.reserve(key.size());
    for (const auto& c : key) {
        hs.push_back(componentHash(c));
    }
    std::sort(hs.begin(), hs.end());
    hs.erase(std::unique(hs.begin(), hs.end()), hs.end());
    return hs;
}

int clampGroup(int group) { return std::clamp(group, 0, kSimilarityGroups - 1); }

} // namespace

SimilarityIndex::SimilarityIndex(const std::vector<IndexedKey>& pool)
    : m_poolSize(pool.size()), m_members(kSimilarityGroups), m_index(kSimilarityGroups)
{
    std::vector<std::unordered_map<std::uint64_t, std::vector<std::uint32_t>>> holders(
        kSimilarityGroups);
    for (std::uint32_t id = 0; id < pool.size(); ++id) {
        const int g = clampGroup(pool[id].group);
        m_members[g].push_back(id);
        for (std::uint64_t h : componentHashes(pool[id].components)) {
            holders[g][h].push_back(id);
        }
    }
    for (int g = 0; g < kSimilarityGroups; ++g) {
        const auto& members = m_members[g];
        auto& index = m_index[g];
        index.reserve(holders[g].size());
        for (auto& [h, ids] : holders[g]) {
            Postings p;
            if (ids.size() * 2 <= members.size()) {
                p.ids = std::move(ids);
            } else {
                p.complement = true;
                std::set_difference(members.begin(), members.end(), ids.begin(), ids.end(),
                                    std::back_inserter(p.ids));
            }
            index.emplace(h, std::move(p));
        }
    }
}

void SimilarityIndex::score(std::span<const Component> probe, int group,
                            std::vector<int>& scores) const
{
    const int g = clampGroup(group);
    scores.assign(m_poolSize, 0);
    int base = 0;
    for (std::uint64_t h : componentHashes(probe)) {
        const auto it = m_index[g].find(h);
        if (it == m_index[g].end()) {
            continue;
        }
        const int step = it->second.complement ? -1 : 1;
        base += it->second.complement ? 1 : 0;
        for (std::uint32_t id : it->second.ids) {
            scores[id] += step;
        }
    }
    for (std::uint32_t id : m_members[g]) {
        scores[id] += base;
    }
}

const std::vector<std::uint32_t>& SimilarityIndex::members(int group) const
{
    return m_members[clampGroup(group)];
}

} // namespace fxs::keydiff
