// Laid-out levels of the hierarchical layout (hierarchical_layout.h), kept by the content of the
// level: the sizes of its boxes and the edges between them. Identical modules expanded alike
// (24 decoder layers) give identical levels, so one Graphviz run serves all of them, and a
// re-layout after expanding one module runs Graphviz only for the levels that changed (that
// module's and those around it). Plain data; no Graphviz types.
// Threading: every method is safe to call from any thread (one mutex).
#pragma once

#include "core/layout/graph_layout.h"

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace fxs::layout {

// One level laid out by dot: its boxes' centres and its edges' splines, in the level's own
// coordinates (Graphviz points, y up), and its bounding box.
struct LevelLayout {
    std::vector<Point> centers;  // parallel to the level's boxes
    std::vector<EdgePath> edges; // parallel to the level's edges (no count labels)
    Rect bbox;
    double seconds = 0;          // Graphviz time
};

class LayoutCache {
public:
    explicit LayoutCache(std::size_t capacity = 4096) : m_capacity(capacity) {}

    // The level with this key, or null (counted as a hit or a miss).
    std::shared_ptr<const LevelLayout> find(std::uint64_t key);
    // Keeps a level; the least recently used one goes when the cache is full.
    void insert(std::uint64_t key, std::shared_ptr<const LevelLayout> level);
    void clear();

    std::size_t size() const;
    std::size_t hits() const;
    std::size_t misses() const;

private:
    using Order = std::list<std::uint64_t>;
    struct Slot {
        std::shared_ptr<const LevelLayout> level;
        Order::iterator age;
    };
    mutable std::mutex m_mutex;
    std::size_t m_capacity;
    std::unordered_map<std::uint64_t, Slot> m_levels;
    Order m_order; // most recently used first
    std::size_t m_hits = 0;
    std::size_t m_misses = 0;
};

} // namespace fxs::layout
