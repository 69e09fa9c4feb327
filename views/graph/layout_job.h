// INTERNAL to GraphView: one background layout request and its outcome (graph_view.cpp
// starts and abandons them, graph_view_layout.cpp makes and applies them).
#pragma once

#include "core/layout/graph_layout.h"
#include "core/layout/readable_opening.h"
#include "core/layout/view_graph.h"

#include <QString>

#include <memory>
#include <optional>

namespace fxs::views {

// One background layout request and its outcome.
struct LayoutJob {
    std::shared_ptr<const layout::ViewGraph> view;
    // A graph's opening: the job chooses the expansion (layoutReadable) and hands it back.
    bool opening = false;
    layout::FitTarget fit;
    std::shared_ptr<layout::ViewGraph> opened;
    std::optional<layout::LayoutResult> result;
    QString error;
};

} // namespace fxs::views
