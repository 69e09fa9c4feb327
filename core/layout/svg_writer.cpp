#include "core/layout/svg_writer.h"

#include "core/graph/op_category.h"
#include "core/layout/palette.h"
#include "core/util/file_writer.h"
#include "core/util/strings.h"

#include <charconv>
#include <cmath>
#include <sstream>

namespace fxs::layout {

namespace {

std::string num(double v)
{
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 2);
    return std::string(buf, res.ptr);
}

// Cuts text to maxChars code points, ending in "…" when cut.
std::string elide(const std::string& s, double maxChars)
{
    std::size_t count = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) {
            continue;
        }
        if (static_cast<double>(++count) > maxChars - 1 && i + 1 < s.size()) {
            return s.substr(0, i) + "…";
        }
    }
    return s;
}

// Maps Graphviz points (y up) to SVG user units (y down).
struct Flip {
    double top;
    double left;
    double margin;
    double x(double gx) const { return gx - left + margin; }
    double y(double gy) const { return top - gy + margin; }
    std::string xy(const Point& p) const { return num(x(p.x)) + "," + num(y(p.y)); }
};

void writeRegions(std::ostream& os, const LayoutResult& l, const Flip& f)
{
    for (const RegionHull& h : l.regions) {
        os << "<polygon class=\"region\" fill=\"" << regionTint(h.tint)
           << "\" fill-opacity=\"0.18\""
           << " stroke=\"" << regionTint(h.tint) << "\" stroke-opacity=\"0.6\" points=\"";
        for (const Point& p : h.polygon) {
            os << f.xy(p) << ' ';
        }
        os << "\"><title>compile_with_inductor: " << escapeMarkup(h.value)
           << "</title></polygon>\n";
    }
}

void writeClusters(std::ostream& os, const LayoutResult& l, const Flip& f, const SvgOptions& o)
{
    for (const ClusterBox& c : l.clusters) {
        os << "<rect class=\"cluster\" x=\"" << num(f.x(c.rect.x0)) << "\" y=\""
           << num(f.y(c.rect.y1)) << "\" width=\"" << num(c.rect.width()) << "\" height=\""
           << num(c.rect.height()) << "\" rx=\"6\" fill=\"none\" stroke=\"#8c8cb4\""
           << " stroke-dasharray=\"4 3\"/>\n";
        os << "<text class=\"cluster-label\" x=\"" << num(f.x(c.rect.x0) + 6) << "\" y=\""
           << num(f.y(c.rect.y1) + o.fontSize + 2) << "\">" << escapeMarkup(c.label) << "</text>\n";
    }
}

void writeArrow(std::ostream& os, const Point& from, const Point& tip, const Flip& f,
                const SvgOptions& o)
{
    const double dx = tip.x - from.x;
    const double dy = tip.y - from.y;
    const double len = std::hypot(dx, dy);
    if (len <= 0) {
        return;
    }
    const double wx = -dy / len * len * 0.35;
    const double wy = dx / len * len * 0.35;
    os << "<polygon fill=\"" << o.edgeColor << "\" points=\"" << f.xy(tip) << ' '
       << f.xy({from.x + wx, from.y + wy}) << ' ' << f.xy({from.x - wx, from.y - wy}) << "\"/>\n";
}

void writeEdges(std::ostream& os, const LayoutResult& l, const Flip& f, const SvgOptions& o)
{
    for (const EdgePath& e : l.edges) {
        if (e.points.empty()) {
            continue;
        }
        os << "<path class=\"edge\" fill=\"none\" stroke=\"" << o.edgeColor << "\" d=\"M"
           << f.xy(e.points[0]);
        for (std::size_t i = 1; i + 2 < e.points.size(); i += 3) {
            os << " C" << f.xy(e.points[i]) << ' ' << f.xy(e.points[i + 1]) << ' '
               << f.xy(e.points[i + 2]);
        }
        os << "\"/>\n";
        if (e.hasArrowEnd) {
            writeArrow(os, e.points.back(), e.arrowEnd, f, o);
        }
        if (e.hasLabel) {
            os << "<text class=\"edge-label\" x=\"" << num(f.x(e.labelPos.x) + 3) << "\" y=\""
               << num(f.y(e.labelPos.y)) << "\">" << escapeMarkup(e.label) << "</text>\n";
        }
    }
}

void writeItems(std::ostream& os, const LayoutResult& l, const ViewGraph& view, const Flip& f,
                const SvgOptions& o)
{
    for (std::size_t i = 0; i < l.visible.items.size() && i < l.boxes.size(); ++i) {
        const VisibleItem& item = l.visible.items[i];
        const ItemBox& b = l.boxes[i];
        const std::string_view fill =
            item.isGroup ? groupFill()
                         : categoryFill(graph::categorize(view.graph().node(item.index)));
        const double x = f.x(b.center.x - b.width / 2);
        const double y = f.y(b.center.y + b.height / 2);
        const std::string id = item.isGroup ? "group-" + std::to_string(item.index)
                                            : view.graph().node(item.index).name;
        os << "<g class=\"" << (item.isGroup ? "group" : "node") << "\" id=\"" << escapeMarkup(id)
           << "\"><rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(b.width)
           << "\" height=\"" << num(b.height) << "\" rx=\"5\" fill=\"" << fill
           << "\" stroke=\"#404040\"" << (item.isGroup ? " stroke-width=\"1.5\"" : "") << "/>";
        const double maxChars = (b.width - 8) / o.charWidth;
        const double cx = f.x(b.center.x);
        const double lineY = item.subtitle.empty() ? f.y(b.center.y) + o.fontSize * 0.35
                                                   : f.y(b.center.y) - 2;
        os << "<text x=\"" << num(cx) << "\" y=\"" << num(lineY) << "\" font-weight=\"bold\">"
           << escapeMarkup(elide(item.title, maxChars)) << "</text>";
        if (!item.subtitle.empty()) {
            os << "<text x=\"" << num(cx) << "\" y=\"" << num(lineY + o.fontSize + 1) << "\">"
               << escapeMarkup(elide(item.subtitle, maxChars)) << "</text>";
        }
        os << "</g>\n";
    }
}

} // namespace

std::string layoutToSvg(const LayoutResult& layout, const ViewGraph& view,
                        const SvgOptions& options)
{
    const Flip f{layout.bbox.y1, layout.bbox.x0, options.margin};
    const double w = layout.bbox.width() + 2 * options.margin;
    const double h = layout.bbox.height() + 2 * options.margin;
    std::ostringstream os;
    os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
       << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << num(w)
       << "\" height=\"" << num(h) << "\" viewBox=\"0 0 " << num(w) << ' ' << num(h) << "\">\n"
       << "<title>" << escapeMarkup(view.graph().name()) << "</title>\n"
       << "<style>text{font-family:Helvetica,Arial,sans-serif;font-size:" << num(options.fontSize)
       << "px;fill:" << options.textColor << ";text-anchor:middle}"
       << " .cluster-label,.edge-label{text-anchor:start;font-size:"
       << num(options.fontSize - 1) << "px}</style>\n"
       << "<rect width=\"100%\" height=\"100%\" fill=\"" << options.background << "\"/>\n";
    writeRegions(os, layout, f);
    writeClusters(os, layout, f, options);
    writeEdges(os, layout, f, options);
    writeItems(os, layout, view, f, options);
    os << "</svg>\n";
    return os.str();
}

Status writeSvgFile(const std::string& path, const LayoutResult& layout, const ViewGraph& view,
                    const SvgOptions& options)
{
    return writeFile(path, layoutToSvg(layout, view, options)); // never a FIFO: file_writer.h
}

} // namespace fxs::layout
