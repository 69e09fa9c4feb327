#include "core/layout/graph_layout.h"

#include "core/graph/op_category.h"
#include "core/layout/dot_level.h"
#include "core/layout/hierarchical_layout.h"
#include "core/layout/palette.h"
#include "core/layout/region_hulls.h"

#include <graphviz/gvc.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <clocale>
#include <locale.h>
#include <mutex>
#include <unordered_map>

namespace fxs::layout {

namespace {

// Graphviz keeps global state (error handlers, the context, cgraph's string pool): every call
// into it runs under this one lock.
std::mutex& graphvizMutex()
{
    static std::mutex m;
    return m;
}

std::string& graphvizErrors()
{
    static std::string errors;
    return errors;
}

int collectGraphvizError(char* message)
{
    graphvizErrors() += message;
    return 0;
}

// Created once under the lock and kept for the process: loading plugins is slow.
GVC_t* graphvizContext()
{
    static GVC_t* gvc = gvContext();
    return gvc;
}

// Graphviz parses numbers with strtod: switch this thread to the C locale while it runs (a Qt
// app has called setlocale(LC_ALL, "") and may use a decimal comma).
class CLocaleScope {
public:
    CLocaleScope() : m_c(newlocale(LC_ALL_MASK, "C", nullptr)), m_old(uselocale(m_c)) {}
    ~CLocaleScope()
    {
        uselocale(m_old);
        freelocale(m_c);
    }
    CLocaleScope(const CLocaleScope&) = delete;
    CLocaleScope& operator=(const CLocaleScope&) = delete;

private:
    locale_t m_c;
    locale_t m_old;
};

char* cstr(const char* s)
{
    return const_cast<char*>(s);
}

std::string number(double v)
{
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 3);
    return std::string(buf, res.ptr);
}

struct Symbols {
    Agsym_t* width = nullptr;
    Agsym_t* height = nullptr;
    Agsym_t* label = nullptr;
    Agsym_t* fill = nullptr;
    Agsym_t* clusterLabel = nullptr;
};

// The Graphviz graph of one visible level, closed (and its layout freed) on destruction.
class GvGraph {
public:
    explicit GvGraph(GVC_t* gvc) : m_gvc(gvc), m_g(agopen(cstr("fxscope"), Agdirected, nullptr))
    {
    }
    ~GvGraph()
    {
        if (m_laidOut) {
            gvFreeLayout(m_gvc, m_g);
        }
        agclose(m_g);
    }
    GvGraph(const GvGraph&) = delete;
    GvGraph& operator=(const GvGraph&) = delete;

    Agraph_t* get() const { return m_g; }
    bool layout()
    {
        m_laidOut = gvLayout(m_gvc, m_g, "dot") == 0;
        return m_laidOut;
    }

    std::vector<Agnode_t*> nodes;
    std::vector<Agedge_t*> edges;
    std::vector<std::pair<GroupId, Agraph_t*>> clusters;

private:
    GVC_t* m_gvc;
    Agraph_t* m_g;
    bool m_laidOut = false;
};

Symbols declareAttributes(Agraph_t* g, const LayoutOptions& o, bool styled)
{
    agattr(g, AGRAPH, cstr("rankdir"), cstr("TB"));
    agattr(g, AGRAPH, cstr("splines"), cstr("spline"));
    agattr(g, AGRAPH, cstr("nodesep"), cstr("0.25"));
    agattr(g, AGRAPH, cstr("ranksep"), cstr("0.35"));
    agattr(g, AGRAPH, cstr("nslimit"), cstr(number(o.nslimit).c_str()));
    agattr(g, AGRAPH, cstr("nslimit1"), cstr(number(o.nslimit).c_str()));
    agattr(g, AGRAPH, cstr("mclimit"), cstr(number(o.mclimit).c_str()));
    agattr(g, AGRAPH, cstr("searchsize"), cstr(std::to_string(o.searchsize).c_str()));
    agattr(g, AGRAPH, cstr("fontsize"), cstr("10"));
    agattr(g, AGRAPH, cstr("labeljust"), cstr("l"));
    agattr(g, AGNODE, cstr("shape"), cstr("box"));
    agattr(g, AGNODE, cstr("fixedsize"), cstr("true"));
    agattr(g, AGNODE, cstr("fontsize"), cstr("10"));
    agattr(g, AGEDGE, cstr("arrowsize"), cstr("0.6"));
    Symbols s;
    s.width = agattr(g, AGNODE, cstr("width"), cstr("0.75"));
    s.height = agattr(g, AGNODE, cstr("height"), cstr("0.5"));
    s.label = agattr(g, AGNODE, cstr("label"), cstr(""));
    s.clusterLabel = agattr(g, AGRAPH, cstr("label"), cstr(""));
    if (styled) {
        agattr(g, AGRAPH, cstr("fontname"), cstr("Helvetica"));
        agattr(g, AGRAPH, cstr("style"), cstr("rounded,dashed"));
        agattr(g, AGNODE, cstr("style"), cstr("rounded,filled"));
        agattr(g, AGNODE, cstr("fontname"), cstr("Helvetica"));
        agattr(g, AGNODE, cstr("fontcolor"), cstr(std::string(nodeTextColor()).c_str()));
        agattr(g, AGEDGE, cstr("color"), cstr("#555555"));
        s.fill = agattr(g, AGNODE, cstr("fillcolor"), cstr("#ffffff"));
    }
    return s;
}

std::string fillOf(const ViewGraph& view, const VisibleItem& item)
{
    if (item.isGroup) {
        return std::string(groupFill());
    }
    return std::string(categoryFill(graph::categorize(view.graph().node(item.index))));
}

void addClusters(GvGraph& gv, const ViewGraph& view, const VisibleGraph& vis,
                 const Symbols& sym, std::unordered_map<GroupId, Agraph_t*>& byGroup)
{
    byGroup[kRootGroup] = gv.get();
    byGroup[view.focus()] = gv.get();
    for (GroupId id : vis.clusters) {
        const Group& grp = view.group(id);
        Agraph_t* parent = byGroup.at(grp.parent);
        const std::string name = "cluster_" + std::to_string(id);
        Agraph_t* sg = agsubg(parent, cstr(name.c_str()), 1);
        agxset(sg, sym.clusterLabel, cstr(grp.label.c_str()));
        byGroup[id] = sg;
        gv.clusters.emplace_back(id, sg);
    }
}

void buildGraph(GvGraph& gv, const ViewGraph& view, const VisibleGraph& vis,
                const LayoutOptions& o, bool styled)
{
    const Symbols sym = declareAttributes(gv.get(), o, styled);
    std::unordered_map<GroupId, Agraph_t*> byGroup;
    if (o.clusters) {
        addClusters(gv, view, vis, sym, byGroup);
    }
    gv.nodes.reserve(vis.items.size());
    for (std::size_t i = 0; i < vis.items.size(); ++i) {
        const VisibleItem& item = vis.items[i];
        Agraph_t* parent = o.clusters ? byGroup.at(item.cluster) : gv.get();
        const std::string name = "n" + std::to_string(i);
        Agnode_t* n = agnode(parent, cstr(name.c_str()), 1);
        const ItemBox box = measureItem(item, o);
        agxset(n, sym.width, cstr(number(box.width / 72.0).c_str()));
        agxset(n, sym.height, cstr(number(box.height / 72.0).c_str()));
        if (styled) {
            std::string label = item.title;
            if (!item.subtitle.empty()) {
                label += "\n" + item.subtitle;
            }
            agxset(n, sym.label, cstr(label.c_str()));
            agxset(n, sym.fill, cstr(fillOf(view, item).c_str()));
        }
        gv.nodes.push_back(n);
    }
    gv.edges.reserve(vis.edges.size());
    for (const VisibleEdge& e : vis.edges) {
        gv.edges.push_back(agedge(gv.get(), gv.nodes[e.from], gv.nodes[e.to], nullptr, 1));
    }
}

Point toPoint(pointf p)
{
    return {p.x, p.y};
}

EdgePath readEdge(Agedge_t* e, const VisibleEdge& ve, const LayoutOptions& o)
{
    EdgePath path;
    const splines* spl = ED_spl(e);
    if (spl != nullptr) {
        for (int i = 0; i < spl->size; ++i) {
            const bezier& b = spl->list[i];
            for (int k = (path.points.empty() ? 0 : 1); k < b.size; ++k) {
                path.points.push_back(toPoint(b.list[k]));
            }
            if (b.eflag) {
                path.hasArrowEnd = true;
                path.arrowEnd = toPoint(b.ep);
            }
        }
    }
    if (o.edgeCountLabels && ve.count > 1) {
        path.hasLabel = true;
        path.label = "×" + std::to_string(ve.count);
        path.labelPos = detail::pathMidpoint(path.points);
    }
    return path;
}

void readResult(const GvGraph& gv, const ViewGraph& view, const LayoutOptions& o,
                LayoutResult& out)
{
    const boxf bb = GD_bb(gv.get());
    out.bbox = {bb.LL.x, bb.LL.y, bb.UR.x, bb.UR.y};
    out.boxes.reserve(gv.nodes.size());
    for (Agnode_t* n : gv.nodes) {
        out.boxes.push_back({toPoint(ND_coord(n)), ND_width(n) * 72.0, ND_height(n) * 72.0});
    }
    out.edges.reserve(gv.edges.size());
    for (std::size_t i = 0; i < gv.edges.size(); ++i) {
        out.edges.push_back(readEdge(gv.edges[i], out.visible.edges[i], o));
    }
    for (const auto& [id, sg] : gv.clusters) {
        const boxf cb = GD_bb(sg);
        ClusterBox c{id, {cb.LL.x, cb.LL.y, cb.UR.x, cb.UR.y}, view.group(id).label, {}};
        const textlabel_t* label = GD_label(sg);
        c.labelPos = label != nullptr ? toPoint(label->pos) : Point{cb.LL.x, cb.UR.y};
        out.clusters.push_back(std::move(c));
    }
}

double textWidth(std::string_view s, const LayoutOptions& o)
{
    if (o.textWidth) {
        return o.textWidth(s);
    }
    // Count code points, not bytes ("·", "…", "×" are multi-byte).
    std::size_t chars = 0;
    for (unsigned char c : s) {
        chars += (c & 0xC0) != 0x80 ? 1 : 0;
    }
    return o.charWidth * static_cast<double>(chars);
}

Error graphvizError(ErrorCode code, std::string message)
{
    Error e = makeError(code, std::move(message));
    e.found = graphvizErrors();
    return e;
}

} // namespace

ItemBox measureItem(const VisibleItem& item, const LayoutOptions& o)
{
    double w = std::max(textWidth(item.title, o), textWidth(item.subtitle, o)) + 2 * o.paddingX;
    if (item.isGroup) {
        w += o.lineHeight; // room for the expand toggle
    }
    w = std::clamp(w, o.minWidth, o.maxWidth);
    const double lines = item.subtitle.empty() ? 1.0 : 2.0;
    return {{}, w, lines * o.lineHeight + 2 * o.paddingY};
}

namespace detail {

// The point of a cubic bezier path at its middle segment's t = 0.5, for count labels.
Point pathMidpoint(const std::vector<Point>& pts)
{
    if (pts.size() < 4) {
        return pts.empty() ? Point{} : pts.front();
    }
    const std::size_t segments = (pts.size() - 1) / 3;
    const std::size_t s = (segments - 1) / 2 * 3;
    const Point& a = pts[s];
    const Point& b = pts[s + 1];
    const Point& c = pts[s + 2];
    const Point& d = pts[s + 3];
    return {(a.x + 3 * b.x + 3 * c.x + d.x) / 8.0, (a.y + 3 * b.y + 3 * c.y + d.y) / 8.0};
}

Result<LevelLayout> layoutLevel(const LevelInput& level, const LayoutOptions& options)
{
    LevelLayout out;
    std::lock_guard lock(graphvizMutex());
    CLocaleScope cLocale;
    graphvizErrors().clear();
    agseterrf(collectGraphvizError);
    GvGraph gv(graphvizContext());
    const Symbols sym = declareAttributes(gv.get(), options, false);
    for (std::size_t i = 0; i < level.sizes.size(); ++i) {
        const std::string name = "n" + std::to_string(i);
        Agnode_t* n = agnode(gv.get(), cstr(name.c_str()), 1);
        agxset(n, sym.width, cstr(number(level.sizes[i].first / 72.0).c_str()));
        agxset(n, sym.height, cstr(number(level.sizes[i].second / 72.0).c_str()));
        gv.nodes.push_back(n);
    }
    for (const auto& [from, to] : level.edges) {
        gv.edges.push_back(agedge(gv.get(), gv.nodes[from], gv.nodes[to], nullptr, 1));
    }
    const auto start = std::chrono::steady_clock::now();
    if (!gv.layout()) {
        return graphvizError(ErrorCode::Runtime, "Graphviz dot layout failed");
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const boxf bb = GD_bb(gv.get());
    out.bbox = {bb.LL.x, bb.LL.y, bb.UR.x, bb.UR.y};
    for (Agnode_t* n : gv.nodes) {
        out.centers.push_back(toPoint(ND_coord(n)));
    }
    LayoutOptions plain = options;
    plain.edgeCountLabels = false;
    for (Agedge_t* e : gv.edges) {
        out.edges.push_back(readEdge(e, VisibleEdge{}, plain));
    }
    return out;
}

} // namespace detail

Result<LayoutResult> layoutViewGraph(const ViewGraph& view, const LayoutOptions& options)
{
    if (view.graph().size() > options.hierarchicalAbove || view.modules()) {
        return layoutHierarchical(view, options);
    }
    LayoutResult out;
    out.visible = view.visible();
    if (options.cancel.isCancelled()) {
        return makeError(ErrorCode::Cancelled, "layout cancelled");
    }
    {
        std::lock_guard lock(graphvizMutex());
        CLocaleScope cLocale;
        graphvizErrors().clear();
        agseterrf(collectGraphvizError);
        GvGraph gv(graphvizContext());
        buildGraph(gv, view, out.visible, options, false);
        const auto start = std::chrono::steady_clock::now();
        if (!gv.layout()) {
            return graphvizError(ErrorCode::Runtime, "Graphviz dot layout failed");
        }
        out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                          .count();
        readResult(gv, view, options, out);
    }
    out.regions = computeRegionHulls(out, view.regionValues());
    return out;
}

Status renderWithGraphviz(const ViewGraph& view, const LayoutOptions& options,
                          const std::string& format, const std::string& path)
{
    const VisibleGraph vis = view.visible();
    std::lock_guard lock(graphvizMutex());
    CLocaleScope cLocale;
    graphvizErrors().clear();
    agseterrf(collectGraphvizError);
    GVC_t* gvc = graphvizContext();
    int formats = 0;
    char** list = gvPluginList(gvc, "device", &formats, nullptr);
    bool known = false;
    for (int i = 0; i < formats; ++i) {
        known = known || format == list[i];
        free(list[i]);
    }
    free(list);
    if (!known) {
        return makeError(ErrorCode::Unsupported,
                         "Graphviz has no renderer for format '" + format + "'");
    }
    GvGraph gv(gvc);
    buildGraph(gv, view, vis, options, true);
    if (!gv.layout()) {
        return graphvizError(ErrorCode::Runtime, "Graphviz dot layout failed");
    }
    if (gvRenderFilename(gvc, gv.get(), format.c_str(), path.c_str()) != 0) {
        return graphvizError(ErrorCode::Io, "Graphviz could not render " + path);
    }
    return {};
}

std::string graphvizVersion()
{
    std::lock_guard lock(graphvizMutex());
    const char* version = gvcVersion(graphvizContext());
    return version ? version : "";
}

} // namespace fxs::layout
