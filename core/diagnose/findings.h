// The ranked list a person reads first: one finding per thing worth acting on (a recompile, a
// graph break, a cache load failure or bypass, rank divergence, a frame's cold start), each
// with its cost in seconds and where to look, largest cost first. Internal to core/diagnose.
#pragma once

#include "core/diagnose/diagnosis.h"

#include <vector>

namespace fxs::diagnose {

// Builds d.findings from the other parts of d (frames, recompiles, graph breaks, cache,
// divergence), sorted by cost (then severity, then text).
std::vector<Finding> makeFindings(const Diagnosis& d);

// "47.5 s", "7.35 s": a cost as findings write it.
std::string costText(double s);

// "record.py:71" style location: the file's last component and the line.
std::string shortLocation(const std::string& file, int line);

} // namespace fxs::diagnose
