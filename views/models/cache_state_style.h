// How cache states look everywhere in the app: a coloured round icon (green hit, red miss,
// amber bypass, grey disabled) and a short word. Colours stay readable on light and dark
// palettes. Needs a QGuiApplication (icons are painted pixmaps).
#pragma once

#include "core/model/cache_lookup.h"

#include <QColor>
#include <QIcon>
#include <QString>

#include <vector>

namespace fxs::views {

QColor cacheStateColor(model::CacheState state);
QIcon cacheStateIcon(model::CacheState state);
QString cacheStateText(model::CacheState state); // "hit", "miss", "bypass", "disabled"

// Counts per state of a set of lookups, e.g. "1 miss, 2 hit"; "" for none. Misses and
// bypasses come first because they are what a user looks for.
QString cacheSummary(const std::vector<model::CacheState>& states);
// The state a summary icon shows: miss over bypass over disabled over hit.
model::CacheState worstState(const std::vector<model::CacheState>& states);

} // namespace fxs::views
