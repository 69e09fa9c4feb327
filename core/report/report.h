// core/report: one self-contained HTML page of what fxscope found in some TORCH_TRACE runs, to
// attach to a bug report or send to a colleague — the diagnosis' findings with what to do, the
// cold start per frame, recompiles, graph breaks, failures, cache lookups with their
// explanations, rank divergence, and a graph drawn by modules (an SVG the caller made with
// core/layout). No script, no style sheet or font from elsewhere, no server: it opens offline.
// Every text from an input is escaped (fxs::escapeMarkup); the SVG is fxscope's own writer's (escaped there).
// With `redact`, nothing that could carry the user's code or data: source lines, file paths and
// names, constant values (redact.h) — the runs are named "run 1", "run 2". Not a viewer of
// anything else (profiles have their own export).
#pragma once

#include "core/diagnose/diagnosis.h"

#include <string>
#include <vector>

namespace fxs::report {

struct ReportInput {
    const diagnose::Diagnosis* diagnosis = nullptr; // required
    std::string graphSvg;     // an <svg> document, or empty: no drawing
    std::string graphCaption; // "Dynamo graph 0/0 of run 1, by modules (1,234 nodes)"
    std::string version;      // fxscope's, for the footer
};

struct ReportOptions {
    bool redact = false;
};

// The whole page.
std::string renderReport(const ReportInput& in, const ReportOptions& options = {});

} // namespace fxs::report
