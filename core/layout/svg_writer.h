// Writes a laid-out view (LayoutResult) as a standalone SVG document without Qt: region hulls,
// cluster frames, edges with arrowheads and count labels, node and group boxes coloured by op
// category. Used by `fxscope-cli render`; the GUI exports through QSvgGenerator instead.
#pragma once

#include "core/layout/graph_layout.h"
#include "core/util/result.h"

#include <string>

namespace fxs::layout {

struct SvgOptions {
    double margin = 16.0;
    double fontSize = 11.0;
    double charWidth = 6.6; // for eliding labels that do not fit their box
    std::string background = "#ffffff";
    std::string edgeColor = "#555555";
    std::string textColor = "#1a1a1a";
};

std::string layoutToSvg(const LayoutResult& layout, const ViewGraph& view,
                        const SvgOptions& options = {});
// Errors: Io when the file cannot be written.
Status writeSvgFile(const std::string& path, const LayoutResult& layout, const ViewGraph& view,
                    const SvgOptions& options = {});

} // namespace fxs::layout
