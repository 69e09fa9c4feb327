#include "views/panels/inspector_panel.h"

#include "core/graph/subgraphs.h"

#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>
#include <map>

namespace fxs::views {
namespace {

using graph::Argument;
using graph::ArgKind;
using graph::Graph;
using graph::Node;
using graph::NodeId;

QString esc(const std::string& s)
{
    return QString::fromStdString(s).toHtmlEscaped();
}

QString nodeLink(const Graph& g, NodeId id)
{
    if (id >= g.size()) {
        return QStringLiteral("?");
    }
    return QStringLiteral("<a href=\"node:%1\">%2</a>").arg(id).arg(esc(g.node(id).name));
}

// Python-like text of an argument with every node reference as a link.
QString argHtml(const Graph& g, const Argument& a)
{
    if (a.kind == ArgKind::Node) {
        return nodeLink(g, a.node);
    }
    if (a.isSequence()) {
        QStringList items;
        for (const auto& item : a.items) {
            items << argHtml(g, item);
        }
        const bool tuple = a.kind == ArgKind::Tuple;
        QString inner = items.join(QStringLiteral(", "));
        if (tuple && items.size() == 1) {
            inner += QLatin1Char(',');
        }
        return tuple ? QStringLiteral("(%1)").arg(inner) : QStringLiteral("[%1]").arg(inner);
    }
    return esc(graph::argumentToString(a, [](NodeId) { return std::string("?"); }));
}

QString row(const QString& label, const QString& value)
{
    return QStringLiteral("<tr><td valign=\"top\"><b>%1</b></td><td>%2</td></tr>").arg(label, value);
}

QString argumentsHtml(const Graph& g, const Node& n)
{
    QString out;
    for (std::size_t i = 0; i < n.args.size(); ++i) {
        out += row(QStringLiteral("[%1]").arg(i), argHtml(g, n.args[i]));
    }
    for (const auto& [key, value] : n.kwargs) {
        out += row(esc(key), argHtml(g, value));
    }
    return out;
}

QString usersHtml(const Graph& g, const Node& n)
{
    QStringList users;
    for (NodeId u : n.users) {
        users << nodeLink(g, u);
    }
    return users.isEmpty() ? QObject::tr("<i>none</i>") : users.join(QStringLiteral(", "));
}

QString sourceHtml(const Node& n)
{
    QString s = QStringLiteral("%1:%2").arg(esc(n.source.file)).arg(n.source.line);
    if (!n.source.function.empty()) {
        s += QObject::tr(" in %1").arg(esc(n.source.function));
    }
    if (!n.source.code.empty()) {
        s += QStringLiteral("<br><code>%1</code>").arg(esc(n.source.code));
    }
    return s;
}

QString metaHtml(const Node& n)
{
    if (n.meta.isTensor()) {
        return QStringLiteral("<code>%1</code>").arg(esc(n.meta.tensor.toString()));
    }
    return n.meta.text.empty() ? QObject::tr("<i>not printed</i>")
                               : QStringLiteral("<code>%1</code>").arg(esc(n.meta.text));
}

// "model.layers.3.mlp" with each prefix a link that selects that module's nodes.
QString modulePathLinks(std::string_view path)
{
    QString html;
    std::size_t start = 0;
    while (start <= path.size()) {
        const std::size_t dot = path.find('.', start);
        const std::size_t end = dot == std::string_view::npos ? path.size() : dot;
        const std::string prefix(path.substr(0, end));
        html += QStringLiteral("<a href=\"module:%1\">%2</a>")
                    .arg(esc(prefix), esc(std::string(path.substr(start, end - start))));
        if (dot == std::string_view::npos) {
            break;
        }
        html += QLatin1Char('.');
        start = dot + 1;
    }
    return QStringLiteral("<code>%1</code>").arg(html);
}

// "model.layers.3.mlp" and, for an input naming a parameter, its path and how it was matched.
QString moduleRows(const structure::ModuleTree& t, NodeId id)
{
    QString html;
    const std::string_view path = id < t.moduleOf.size() ? t.pathOf(id) : std::string_view{};
    if (!path.empty()) {
        html += row(QObject::tr("Module"), modulePathLinks(path));
    }
    if (const structure::InputPath* in = t.inputPath(id)) {
        QString text = QStringLiteral("<code>%1</code>").arg(esc(in->path));
        if (in->strength != structure::MatchStrength::Name) {
            text += QObject::tr(" (matched by %1)")
                        .arg(esc(std::string(structure::matchStrengthName(in->strength))));
        }
        html += row(QObject::tr("Parameter"), text);
    }
    return html;
}

// "blocks.0.attn (MultiheadAttention)": the innermost module, its class without the package.
QString moduleHtml(const Node& n)
{
    const graph::ModuleFrame& m = n.moduleStack.back();
    const auto dot = m.type.rfind('.');
    const std::string cls = dot == std::string::npos ? m.type : m.type.substr(dot + 1);
    const QString path = m.path.empty() ? QObject::tr("<i>root</i>") : esc(m.path);
    return QStringLiteral("%1 (%2)").arg(path, esc(cls));
}

// Each body a higher-order node runs: its link, size, and every node of the graph calling it.
QString bodiesHtml(const Graph& g, const Node& n)
{
    QStringList rows;
    for (const auto& s : graph::listSubgraphs(g)) {
        if (std::find(s.callSites.begin(), s.callSites.end(), n.id) == s.callSites.end()) {
            continue;
        }
        QStringList calls;
        for (NodeId c : s.callSites) {
            calls << nodeLink(g, c);
        }
        const int count = static_cast<int>(s.calls());
        rows << QObject::tr("<a href=\"body:%1\">%1</a> · %2 nodes · called %3: ")
                        .arg(esc(s.name))
                        .arg(s.graph->size())
                        .arg(count == 1 ? QObject::tr("once")
                                        : QObject::tr("%1 times").arg(count)) +
                    calls.join(QStringLiteral(", "));
    }
    return rows.join(QStringLiteral("<br>"));
}

} // namespace

InspectorPanel::InspectorPanel(QWidget* parent) : QWidget(parent), m_browser(new QTextBrowser(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_browser);
    m_browser->setOpenLinks(false);
    m_browser->setPlaceholderText(tr("Select a node in the graph to see its details."));
    connect(m_browser, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        const QString s = url.toString();
        if (s.startsWith(QLatin1String("node:"))) {
            bool ok = false;
            const uint id = s.mid(5).toUInt(&ok);
            if (ok && m_graph && id < m_graph->size()) {
                Q_EMIT nodeLinkActivated(static_cast<graph::NodeId>(id));
            }
        } else if (s.startsWith(QLatin1String("body:"))) {
            Q_EMIT bodyLinkActivated(s.mid(5));
        } else if (s.startsWith(QLatin1String("module:"))) {
            Q_EMIT moduleLinkActivated(s.mid(7));
        }
    });
}

QString InspectorPanel::nodeHtml(const Graph& g, NodeId id, const structure::ModuleTree* modules)
{
    const Node& n = g.node(id);
    QString html = QStringLiteral("<h3>%1</h3><table cellspacing=\"2\" cellpadding=\"2\">").arg(esc(n.name));
    // What a higher-order node runs comes first: the link a user came for (double-click
    // enters it too).
    if (graph::isHigherOrderCall(n)) {
        if (const QString bodies = bodiesHtml(g, n); !bodies.isEmpty()) {
            html += row(tr("Body"), bodies);
        }
    }
    html += row(tr("Op"), esc(std::string(graph::opKindName(n.op))));
    html += row(tr("Target"), QStringLiteral("<code>%1</code>").arg(esc(n.target)));
    if (modules != nullptr) {
        html += moduleRows(*modules, id);
    }
    html += argumentsHtml(g, n);
    if (!n.isOutput()) {
        html += row(tr("Output"), metaHtml(n));
    }
    if (n.getitemOf != graph::kNoNode) {
        html += row(tr("Item of"), QStringLiteral("%1[%2]").arg(nodeLink(g, n.getitemOf)).arg(n.getitemIndex));
    }
    html += row(tr("Users"), usersHtml(g, n));
    if (n.source.known()) {
        html += row(tr("Source"), sourceHtml(n));
    }
    // The export's own module stack (with the module's class) when the tree gave no path.
    const bool treePath = modules != nullptr && id < modules->moduleOf.size() &&
                          !modules->pathOf(id).empty();
    if (!n.moduleStack.empty() && !treePath) {
        html += row(tr("Module"), moduleHtml(n));
    }
    if (n.annotation) {
        html += row(tr("Annotation"), QStringLiteral("<code>%1</code>").arg(esc(n.annotation->text)));
    }
    if (n.aot) {
        html += row(tr("AOT"), esc(n.aot->text));
    }
    if (n.line > 0) {
        html += row(tr("Line"), QString::number(n.line));
    }
    html += QStringLiteral("</table>");
    if (!n.statement.empty()) {
        html += QStringLiteral("<p><b>%1</b></p><pre style=\"white-space: pre-wrap\">%2</pre>")
                    .arg(tr("Statement"), esc(n.statement));
    }
    return html;
}

void InspectorPanel::setNode(graph::GraphPtr graph, graph::NodeId id)
{
    if (!graph || id >= graph->size()) {
        clear();
        return;
    }
    m_graph = std::move(graph);
    m_node = id;
    m_browser->setHtml(nodeHtml(*m_graph, id, modulesFor(*m_graph)));
}

const structure::ModuleTree* InspectorPanel::modulesFor(const Graph& graph) const
{
    return m_modulesGraph.get() == &graph ? m_modules.get() : nullptr;
}

void InspectorPanel::setModules(graph::GraphPtr graph,
                                std::shared_ptr<const structure::ModuleTree> tree)
{
    const bool shown = m_graph && m_node != graph::kNoNode && graph == m_graph;
    m_modulesGraph = tree ? std::move(graph) : nullptr;
    m_modules = std::move(tree);
    if (shown) {
        setNode(m_graph, m_node);
    }
}

QString InspectorPanel::selectionHtml(const Graph& g, const std::vector<NodeId>& nodes)
{
    // Ops by what a user reads: the aten name without namespace and overload ("mm"), else the
    // op kind ("placeholder").
    std::map<QString, int> counts;
    for (NodeId id : nodes) {
        if (id >= g.size()) {
            continue;
        }
        const Node& n = g.node(id);
        QString op = QString::fromStdString(n.op == graph::OpKind::CallFunction
                                                ? n.target
                                                : std::string(graph::opKindName(n.op)));
        op = op.mid(op.lastIndexOf(QLatin1String("::")) + (op.contains(QLatin1String("::")) ? 2 : 0));
        counts[op.section(QLatin1Char('.'), 0, 0)] += 1;
    }
    std::vector<std::pair<QString, int>> ops(counts.begin(), counts.end());
    std::stable_sort(ops.begin(), ops.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    constexpr std::size_t kShown = 8;
    QStringList parts;
    for (std::size_t i = 0; i < ops.size() && i < kShown; ++i) {
        parts << QStringLiteral("%1 × %2").arg(ops[i].second).arg(ops[i].first.toHtmlEscaped());
    }
    if (ops.size() > kShown) {
        parts << tr("%1 more").arg(ops.size() - kShown);
    }
    return QStringLiteral("<h3>%1</h3><p>%2</p>")
        .arg(nodes.size() == 1 ? tr("1 node selected") : tr("%1 nodes selected").arg(nodes.size()),
             parts.join(QStringLiteral(", ")));
}

void InspectorPanel::setSelection(graph::GraphPtr graph, const std::vector<NodeId>& nodes,
                                  NodeId current)
{
    if (!graph || nodes.size() <= 1) {
        nodes.empty() ? clear() : setNode(std::move(graph), nodes.front());
        return;
    }
    m_graph = std::move(graph);
    const bool shown = std::find(nodes.begin(), nodes.end(), current) != nodes.end() &&
                       current < m_graph->size();
    m_node = shown ? current : graph::kNoNode;
    QString html = selectionHtml(*m_graph, nodes);
    if (shown) {
        html += QStringLiteral("<hr>") + nodeHtml(*m_graph, current, modulesFor(*m_graph));
    }
    m_browser->setHtml(html);
}

void InspectorPanel::clear()
{
    m_graph.reset();
    m_node = graph::kNoNode;
    m_browser->clear();
}

QString InspectorPanel::plainText() const
{
    return m_browser->toPlainText();
}

} // namespace fxs::views
