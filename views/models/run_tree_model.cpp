#include "views/models/run_tree_model.h"

#include "core/graph/subgraphs.h"
#include "views/models/cache_state_style.h"
#include "views/models/graph_kinds.h"

#include <QFileInfo>

#include <algorithm>
#include <map>
#include <numeric>

namespace fxs::views {

QString RunTreeModel::linesText(int lines)
{
    return lines == 1 ? tr("1 line") : tr("%1 lines").arg(lines);
}

RunTreeModel::RunTreeModel(const Workspace* workspace, QObject* parent)
    : QAbstractItemModel(parent), m_workspace(workspace)
{
    connect(workspace, &Workspace::aboutToChange, this, [this] { beginResetModel(); });
    connect(workspace, &Workspace::changed, this, [this] {
        rebuild();
        endResetModel();
    });
    connect(workspace, &Workspace::graphReady, this, &RunTreeModel::onGraphReady);
    rebuild();
}

QString RunTreeModel::bodyText(const QString& name, int calls)
{
    if (calls == 0) {
        return tr("%1 · not called").arg(name);
    }
    return calls == 1 ? tr("%1 · 1 call").arg(name) : tr("%1 · %2 calls").arg(name).arg(calls);
}

void RunTreeModel::onGraphReady(GraphRef ref)
{
    const QModelIndex name = indexOf(ref);
    if (!name.isValid()) {
        return;
    }
    const QModelIndex nodes = name.siblingAtColumn(NodesColumn);
    Q_EMIT dataChanged(nodes, nodes, {Qt::DisplayRole, Qt::ToolTipRole});
    const int id = static_cast<int>(name.internalId());
    const auto g = m_workspace->graph(ref);
    if (!g || !m_items[std::size_t(id)].children.empty()) {
        return;
    }
    const auto subs = graph::listSubgraphs(*g);
    const auto top = std::count_if(subs.begin(), subs.end(),
                                   [](const graph::Subgraph& s) { return s.parent.empty(); });
    if (top == 0) {
        return;
    }
    beginInsertRows(name, 0, int(top) - 1);
    addBodies(id);
    endInsertRows();
}

int RunTreeModel::addBodies(int graphItem)
{
    const GraphRef ref = m_items[std::size_t(graphItem)].graph;
    const auto g = m_workspace->parsePending(ref) ? nullptr : m_workspace->graph(ref);
    if (!g) {
        return 0;
    }
    std::map<std::string, int> itemOfBody; // body name -> its item (names are unique per graph)
    int added = 0;
    for (const graph::Subgraph& s : graph::listSubgraphs(*g)) {
        const auto parent = itemOfBody.find(s.parent);
        const int parentItem = s.parent.empty() || parent == itemOfBody.end() ? graphItem
                                                                             : parent->second;
        Item b{ItemKind::Body, parentItem};
        b.run = m_items[std::size_t(graphItem)].run;
        b.graph = ref;
        b.bodyPath = parentItem == graphItem ? QStringList()
                                             : m_items[std::size_t(parentItem)].bodyPath;
        b.bodyPath << QString::fromStdString(s.name);
        b.calls = static_cast<int>(s.calls());
        b.bodyNodes = s.graph ? s.graph->size() : 0;
        itemOfBody[s.name] = addItem(std::move(b));
        added += parentItem == graphItem ? 1 : 0;
    }
    return added;
}

int RunTreeModel::addItem(Item item)
{
    const int id = static_cast<int>(m_items.size());
    auto& siblings = item.parent < 0 ? m_top : m_items[static_cast<std::size_t>(item.parent)].children;
    item.row = static_cast<int>(siblings.size());
    siblings.push_back(id);
    m_items.push_back(std::move(item));
    return id;
}

void RunTreeModel::rebuild()
{
    m_items.clear();
    m_top.clear();
    for (int r = 0; r < static_cast<int>(m_workspace->runs().size()); ++r) {
        addRun(r);
    }
    if (!m_workspace->graphFiles().empty()) {
        addGraphFiles();
    }
}

void RunTreeModel::addRun(int r)
{
    const model::Run& run = *m_workspace->runs()[static_cast<std::size_t>(r)];
    Item runItem{ItemKind::Run};
    runItem.run = r;
    for (const auto& l : run.lookups) {
        runItem.states.push_back(l.state);
    }
    const int runId = addItem(std::move(runItem));
    for (const auto& cid : run.compileIds()) {
        Item c{ItemKind::CompileId, runId};
        c.run = r;
        c.compileId = cid;
        for (const auto& l : run.lookups) {
            if (l.compileId == cid) {
                c.states.push_back(l.state);
            }
        }
        const int cidId = addItem(std::move(c));
        std::vector<int> graphs;
        for (int g = 0; g < static_cast<int>(run.graphs.size()); ++g) {
            if (run.graphs[static_cast<std::size_t>(g)].compileId == cid) {
                graphs.push_back(g);
            }
        }
        // By rank, then by kind: each rank's graphs together.
        std::stable_sort(graphs.begin(), graphs.end(), [&](int a, int b) {
            const auto& ga = run.graphs[static_cast<std::size_t>(a)];
            const auto& gb = run.graphs[static_cast<std::size_t>(b)];
            return std::pair(ga.rank, graphKindOrder(ga.kind))
                   < std::pair(gb.rank, graphKindOrder(gb.kind));
        });
        for (int g : graphs) {
            Item gi{ItemKind::Graph, cidId};
            gi.run = r;
            gi.graph = GraphRef{r, g};
            for (const auto& ref : m_workspace->lookupsForGraph(gi.graph)) {
                gi.states.push_back(m_workspace->lookup(ref)->state);
            }
            addBodies(addItem(std::move(gi)));
        }
    }
}

void RunTreeModel::addGraphFiles()
{
    const int files = addItem(Item{ItemKind::GraphFiles});
    for (int g = 0; g < static_cast<int>(m_workspace->graphFiles().size()); ++g) {
        Item gi{ItemKind::Graph, files};
        gi.graph = GraphRef{GraphRef::kStandalone, g};
        addBodies(addItem(std::move(gi)));
    }
}

const RunTreeModel::Item* RunTreeModel::itemAt(const QModelIndex& index) const
{
    if (!index.isValid() || index.model() != this) {
        return nullptr;
    }
    return &m_items[static_cast<std::size_t>(index.internalId())];
}

QModelIndex RunTreeModel::indexOf(GraphRef ref) const
{
    for (std::size_t i = 0; i < m_items.size(); ++i) {
        if (m_items[i].kind == ItemKind::Graph && m_items[i].graph == ref) {
            return createIndex(m_items[i].row, 0, quintptr(i));
        }
    }
    return {};
}

QModelIndex RunTreeModel::index(int row, int column, const QModelIndex& parent) const
{
    if (!hasIndex(row, column, parent)) {
        return {};
    }
    const Item* p = itemAt(parent);
    const auto& siblings = p ? p->children : m_top;
    return createIndex(row, column, quintptr(siblings[static_cast<std::size_t>(row)]));
}

QModelIndex RunTreeModel::parent(const QModelIndex& child) const
{
    const Item* item = itemAt(child);
    if (!item || item->parent < 0) {
        return {};
    }
    const Item& p = m_items[static_cast<std::size_t>(item->parent)];
    return createIndex(p.row, 0, quintptr(item->parent));
}

int RunTreeModel::rowCount(const QModelIndex& parent) const
{
    if (parent.column() > 0) {
        return 0;
    }
    const Item* p = itemAt(parent);
    return static_cast<int>(p ? p->children.size() : m_top.size());
}

int RunTreeModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

// "1_cold.log", "trace_dir · ranks 0, 1", "rank1.log · rank 1".
QString RunTreeModel::runLabel(int run) const
{
    const auto ranks = runRanks(*m_workspace->runs()[std::size_t(run)]);
    QStringList names;
    for (int r : ranks) {
        names << QString::number(r);
    }
    const QString name = m_workspace->runName(run);
    if (ranks.empty()) {
        return name;
    }
    return ranks.size() == 1 ? tr("%1 · rank %2").arg(name, names.front())
                             : tr("%1 · ranks %2").arg(name, names.join(QStringLiteral(", ")));
}

QVariant RunTreeModel::displayData(const Item& item, int column) const
{
    if (column == NameColumn) {
        switch (item.kind) {
        case ItemKind::Run: return runLabel(item.run);
        case ItemKind::GraphFiles: return tr("Graph files");
        case ItemKind::CompileId: return QString::fromStdString(item.compileId.toString());
        case ItemKind::Body: return bodyText(item.bodyPath.constLast(), item.calls);
        case ItemKind::Graph:
            return item.graph.run == GraphRef::kStandalone
                       ? m_workspace->graphTitle(item.graph)
                       : graphDisplayName(*m_workspace->runs()[std::size_t(item.run)],
                                          item.graph.index);
        }
    }
    if (column == NodesColumn) {
        if (item.kind == ItemKind::Graph) {
            if (m_workspace->parsePending(item.graph)) { // counted, not parsed yet
                return linesText(m_workspace->artifact(item.graph)->payloadLines);
            }
            const auto g = m_workspace->graph(item.graph);
            return g ? QVariant(qulonglong(g->size())) : QVariant(tr("unreadable"));
        }
        if (item.kind == ItemKind::Body) {
            return qulonglong(item.bodyNodes);
        }
        return {}; // runs and compile ids: their graph counts are in the tooltip
    }
    if (column == CacheColumn) {
        return cacheSummary(item.states);
    }
    return {};
}

QVariant RunTreeModel::toolTip(const Item& item) const
{
    switch (item.kind) {
    case ItemKind::Run: {
        const auto& run = *m_workspace->runs()[static_cast<std::size_t>(item.run)];
        return tr("%1\n%n graph(s), %2 cache lookup(s)", "", int(run.graphs.size()))
            .arg(QString::fromStdString(run.path))
            .arg(run.lookups.size());
    }
    case ItemKind::CompileId:
        return tr("compile %1: %n graph(s)", "", int(item.children.size()))
            .arg(QString::fromStdString(item.compileId.toString()));
    case ItemKind::Graph: {
        const auto* a = m_workspace->artifact(item.graph);
        const QString where = tr("%1\n%2:%3")
                                  .arg(QString::fromStdString(a->kind),
                                       QString::fromStdString(a->file))
                                  .arg(a->line);
        return m_workspace->parsePending(item.graph)
                   ? where + tr("\n%1 of graph code, read when the graph is first shown")
                                 .arg(linesText(a->payloadLines))
                   : where;
    }
    case ItemKind::Body:
        return tr("higher-order body %1 of %2\n%3")
            .arg(item.bodyPath.join(QStringLiteral(" › ")), m_workspace->graphTitle(item.graph),
                 bodyText(item.bodyPath.constLast(), item.calls));
    default: return {};
    }
}

QVariant RunTreeModel::data(const QModelIndex& index, int role) const
{
    const Item* item = itemAt(index);
    if (!item) {
        return {};
    }
    switch (role) {
    case Qt::DisplayRole: return displayData(*item, index.column());
    case Qt::ToolTipRole: return toolTip(*item);
    case Qt::DecorationRole:
        if (index.column() == CacheColumn && !item->states.empty()) {
            return cacheStateIcon(worstState(item->states));
        }
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == NodesColumn) {
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        }
        return {};
    case GraphRefRole:
        return item->kind == ItemKind::Graph || item->kind == ItemKind::Body
                   ? QVariant::fromValue(item->graph)
                   : QVariant();
    case BodyPathRole:
        return item->kind == ItemKind::Body ? QVariant(item->bodyPath) : QVariant();
    case ItemKindRole: return static_cast<int>(item->kind);
    case RunIndexRole: return item->run;
    default: return {};
    }
}

QVariant RunTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case NameColumn: return tr("Name");
    case NodesColumn: return tr("Nodes");
    case CacheColumn: return tr("Cache");
    default: return {};
    }
}

} // namespace fxs::views
