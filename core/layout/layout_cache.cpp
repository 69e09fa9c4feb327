#include "core/layout/layout_cache.h"

namespace fxs::layout {

std::shared_ptr<const LevelLayout> LayoutCache::find(std::uint64_t key)
{
    std::lock_guard lock(m_mutex);
    const auto it = m_levels.find(key);
    if (it == m_levels.end()) {
        ++m_misses;
        return nullptr;
    }
    ++m_hits;
    m_order.splice(m_order.begin(), m_order, it->second.age);
    return it->second.level;
}

void LayoutCache::insert(std::uint64_t key, std::shared_ptr<const LevelLayout> level)
{
    std::lock_guard lock(m_mutex);
    if (const auto it = m_levels.find(key); it != m_levels.end()) {
        it->second.level = std::move(level);
        m_order.splice(m_order.begin(), m_order, it->second.age);
        return;
    }
    while (!m_order.empty() && m_levels.size() >= m_capacity) {
        m_levels.erase(m_order.back());
        m_order.pop_back();
    }
    m_order.push_front(key);
    m_levels.emplace(key, Slot{std::move(level), m_order.begin()});
}

void LayoutCache::clear()
{
    std::lock_guard lock(m_mutex);
    m_levels.clear();
    m_order.clear();
}

std::size_t LayoutCache::size() const
{
    std::lock_guard lock(m_mutex);
    return m_levels.size();
}

std::size_t LayoutCache::hits() const
{
    std::lock_guard lock(m_mutex);
    return m_hits;
}

std::size_t LayoutCache::misses() const
{
    std::lock_guard lock(m_mutex);
    return m_misses;
}

} // namespace fxs::layout
