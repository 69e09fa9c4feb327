// The navigator's tree: runs › compile ids › graphs › higher-order bodies ("repeated_subgraph0
// · 24 calls", nested bodies under theirs), plus a "Graph files" branch for standalone graph
// files. Columns: name, node count, cache state of the lookups that key the graph (summed up
// for compile ids and runs). Rebuilt from the Workspace when it changes; a graph parsed later
// (deferred) gains its body rows then. Read-only.
#pragma once

#include "views/models/workspace.h"

#include <QAbstractItemModel>

#include <vector>

namespace fxs::views {

class RunTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { NameColumn, NodesColumn, CacheColumn, ColumnCount };
    enum Role {
        GraphRefRole = Qt::UserRole + 1, // GraphRef on graph rows (body rows: the caller's)
        ItemKindRole,                    // ItemKind as int
        RunIndexRole,                    // run index, -1 for the graph-files branch
        BodyPathRole,                    // body rows: the body names from the graph down
    };
    enum class ItemKind { Run, GraphFiles, CompileId, Graph, Body };

    explicit RunTreeModel(const Workspace* workspace, QObject* parent = nullptr);

    // "1 line", "5926 lines": a graph not read yet (its parse deferred) is listed so.
    static QString linesText(int lines);
    // "repeated_subgraph0 · 24 calls", "true_graph_0 · 1 call", "body · not called".
    static QString bodyText(const QString& name, int calls);
    // The index of a graph's row (column 0); invalid when the graph is not shown.
    QModelIndex indexOf(GraphRef ref) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    struct Item {
        ItemKind kind = ItemKind::Run;
        int parent = -1; // item index, -1 for top level
        int row = 0;
        std::vector<int> children;
        int run = -1;
        model::CompileId compileId;
        GraphRef graph;
        std::vector<model::CacheState> states; // lookups under this item
        QStringList bodyPath; // Body: names from the graph's body down to this one
        int calls = 0;        // Body: call sites in its caller
        std::size_t bodyNodes = 0;
    };

    void rebuild();
    int addItem(Item item);
    void addRun(int run);
    void addGraphFiles();
    // Body rows under graph item `graphItem` when its graph is parsed; returns how many
    // top-level body rows were added.
    int addBodies(int graphItem);
    void onGraphReady(GraphRef ref);
    QVariant displayData(const Item& item, int column) const;
    QString runLabel(int run) const;
    QVariant toolTip(const Item& item) const;
    const Item* itemAt(const QModelIndex& index) const;

    const Workspace* m_workspace;
    std::vector<Item> m_items;
    std::vector<int> m_top;
};

} // namespace fxs::views
