// Answers "which module is this node in" for the graph on screen: recovers the shown graph's
// module tree (core/structure; a graph of a TORCH_TRACE run with its compile's other graphs) on a
// JobTracker when the ShownGraph reports it parsed (graphReady; the newest graph wins), hands
// it to the ShownGraph (setStructure: the window lays out by modules and tells the Inspector)
// and publishes it with structureReady. Also maps a module of one graph to its nodes in another
// graph of the same compile (Dynamo ↔ AOT forward ↔ backward). Not a view; parses nothing
// (the WorkspaceLoader does) and never blocks the GUI thread.
#pragma once

#include "core/structure/module_tree.h"
#include "views/jobs/job_tracker.h"
#include "views/models/workspace.h"

#include <QObject>

#include <memory>
#include <string>
#include <vector>

namespace fxs::app {

class AppContext;

class StructureController : public QObject {
    Q_OBJECT
public:
    explicit StructureController(AppContext* context);

    // The module tree of the graph last published (null before the first, or on failure).
    views::GraphRef graphRef() const { return m_ref; }
    std::shared_ptr<const structure::ModuleTree> tree() const { return m_tree; }
    bool isRecovering() const { return m_jobs.isRunning(); }
    // The tree of a graph recovered before (the last few graphs are kept), or null.
    std::shared_ptr<const structure::ModuleTree> knownTree(const graph::GraphPtr& graph) const;

    // Selects every node of module `path` ("model.layers.3.mlp") in the shown graph and keeps
    // following it: showing another graph of the same compile (Dynamo ↔ AOT forward ↔
    // backward) selects the same module there. An empty path stops following.
    void selectModule(const QString& path);
    QString followedModule() const { return m_followed; }

    // The nodes of module `path` in graph `other` (a graph of a run: recovered with its
    // compile's graphs; synchronously, for a person's click). Empty when the module is not
    // there, or while `other` or the graphs its structure reads are not parsed: then their
    // parse is asked of the WorkspaceLoader (in the background), and the Workspace's
    // graphReady says when to ask again.
    std::vector<graph::NodeId> moduleNodesIn(views::GraphRef other, const std::string& path) const;

Q_SIGNALS:
    // The current graph's tree is known (tree null when recovery failed; the reason went to the
    // status line).
    void structureReady(fxs::views::GraphRef ref, fxs::graph::GraphPtr graph,
                        std::shared_ptr<const fxs::structure::ModuleTree> tree);

private:
    void onRefChanged(views::GraphRef ref);
    void recover(views::GraphRef ref, const graph::GraphPtr& graph);
    void publish(views::GraphRef ref, const graph::GraphPtr& graph,
                 std::shared_ptr<const structure::ModuleTree> tree);

    AppContext* m_context;
    jobs::JobTracker m_jobs;
    void remember(const graph::GraphPtr& graph, std::shared_ptr<const structure::ModuleTree> tree);
    // Selects the followed module in the shown graph when it is `graph` of the followed compile.
    void follow(views::GraphRef ref, const graph::GraphPtr& graph);

    views::GraphRef m_ref;
    std::shared_ptr<const structure::ModuleTree> m_tree;
    // Recent graphs and their trees, newest last (coming back to a graph is instant).
    QString m_followed;        // module path being followed, or empty
    int m_followRun = -1;      // ... in graphs of this run and compile id
    std::string m_followCompile;
    std::vector<std::pair<std::weak_ptr<const graph::Graph>,
                          std::shared_ptr<const structure::ModuleTree>>> m_known;
};

} // namespace fxs::app
