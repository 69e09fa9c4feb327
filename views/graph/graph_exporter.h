// GraphExporter: writes what a GraphScene shows (at its expansion state) as SVG or PNG, for
// File › Export and `GraphView::exportSvg/Png`. Reads the scene; changes nothing in it. Not a
// renderer of graphs that are not laid out (fxscope-cli render writes SVG from core/layout).
#pragma once

#include <QString>

namespace fxs::views {

class GraphScene;

class GraphExporter {
public:
    explicit GraphExporter(GraphScene& scene) : m_scene(scene) {}

    // False when the scene is empty or the file cannot be written. title: the SVG's title.
    bool writeSvg(const QString& path, const QString& title) const;
    // At twice the scene's size for crisp prints, at most 16000 pixels a side.
    bool writePng(const QString& path) const;

private:
    GraphScene& m_scene; // rendering a scene is not const in Qt
};

} // namespace fxs::views
