// The Kernels dock: where a compiled model's GPU time went, from a runtime attribution. A
// Kernels tab — summary line, the heat legend of the graph on screen, a sortable table of kernel
// call sites (all, or those of the selected node, with Show All), the selected kernel's source
// stack — and a Modules tab (GPU time summed by module path). Selecting a kernel emits
// kernelSelected, a module moduleSelected; the app answers. Runs nothing itself: the app reads
// traces and joins them in the background and feeds progress and results in.
#pragma once

#include "views/models/kernel_models.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QHBoxLayout;
class QLabel;
class QTextBrowser;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;

namespace fxs::views {

class KernelsPanel : public QWidget {
    Q_OBJECT
public:
    explicit KernelsPanel(QWidget* parent = nullptr);

    // The attribution shown (null: none); clears the filter, the stack and the selection.
    void setAttribution(std::shared_ptr<const runtime::Attribution> attribution,
                        const QString& summary);
    // The heat legend for the graph on screen: stops up to maxUs and a line about it (what the
    // graph's nodes add up to); maxUs <= 0 hides the stops and shows only the line.
    void setHeatLegend(double maxUs, const QString& text);
    // Only these kernels, with a title saying whose ("Kernels of node mm"); nullopt: all.
    void setFilter(std::optional<std::vector<std::size_t>> kernels, const QString& title = {});
    // The source stack of the selected kernel (kernel_stack_traces), as text; empty hides it.
    // Each traceback frame (`File "path", line N, in f`) is a link: activating it emits
    // sourceLineActivated.
    void setStack(const QString& text);
    // The frames linked in the stack shown, in order: (file, line).
    const std::vector<std::pair<QString, int>>& stackFrames() const { return m_frames; }
    // As a click on the link of frame i does.
    void activateStackFrame(std::size_t i);
    // Selects the row of a kernel (no signal back); a kernel not shown clears the selection.
    void selectKernel(std::optional<std::size_t> kernel);
    std::optional<std::size_t> selectedKernel() const;

    void setBusy(bool busy);
    void setProgress(double fraction, const QString& phase);

    KernelsModel* model() const { return m_model; }
    KernelModulesModel* moduleModel() const { return m_moduleModel; }
    QTableView* view() const { return m_view; }
    QTableView* moduleView() const { return m_moduleView; }
    QTabWidget* tabs() const { return m_tabs; }
    QTextBrowser* stackView() const { return m_stack; }
    QString summary() const;
    QString legendText() const;
    int legendStops() const;

Q_SIGNALS:
    void kernelSelected(std::size_t kernel); // an index into Attribution::kernels
    void moduleSelected(const QString& path);
    void showAllRequested();
    void cancelRequested();
    // A frame of the stack was clicked: the nodes that come from file:line are wanted.
    void sourceLineActivated(const QString& file, int line);

private:
    QWidget* buildKernelsTab();

    KernelsModel* m_model;
    QSortFilterProxyModel* m_proxy;
    KernelModulesModel* m_moduleModel;
    QSortFilterProxyModel* m_moduleProxy;
    QTabWidget* m_tabs;
    QTableView* m_view = nullptr;
    QTableView* m_moduleView = nullptr;
    QLabel* m_summary = nullptr;
    QHBoxLayout* m_legend = nullptr;
    QLabel* m_legendText = nullptr;
    QLabel* m_filterTitle = nullptr;
    QPushButton* m_showAll = nullptr;
    QTextBrowser* m_stack = nullptr;
    std::vector<std::pair<QString, int>> m_frames;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    bool m_selecting = false;
};

} // namespace fxs::views
