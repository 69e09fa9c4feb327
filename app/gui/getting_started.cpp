#include "app/gui/getting_started.h"

#include <QDialogButtonBox>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace fxs::app {

GettingStartedDialog::GettingStartedDialog(QWidget* parent) : QDialog(parent)
{
    setObjectName(QStringLiteral("gettingStartedDialog"));
    setWindowTitle(tr("Getting Started with fxscope"));
    auto* text = new QTextBrowser(this);
    text->setObjectName(QStringLiteral("gettingStartedText"));
    text->setOpenExternalLinks(false);
    text->setHtml(html());
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(text, 1);
    layout->addWidget(buttons);
    const int em = fontMetrics().horizontalAdvance(QLatin1Char('M'));
    resize(48 * em, 36 * fontMetrics().height());
}

QString GettingStartedDialog::html()
{
    return tr(
        "<h2>Getting started</h2>"
        "<p>fxscope opens what <code>torch.compile</code> leaves behind: <code>TORCH_TRACE</code> "
        "logs (a file or a directory of runs), printed graph code, TorchScript <code>.pt</code> "
        "files and <code>.fxscope</code> projects. Use <b>File › Open</b>, drop files on the "
        "window, or name them on the command line.</p>"
        "<h3>The window</h3><ul>"
        "<li><b>Navigator</b> (left): every run and graph loaded; pick one to show it.</li>"
        "<li><b>Graph</b> (middle): the selected graph, grouped by module; double-click a group "
        "to expand it, <b>Ctrl+F</b> finds a node, <b>Ctrl+0</b> fits.</li>"
        "<li><b>Inspector</b> and <b>Code</b> (right): the selected node — its target, "
        "arguments, shapes, source line — and the graph's code.</li>"
        "<li><b>Cache</b> (bottom): each compile-cache lookup of a run, hit or miss, and why, "
        "compared with an earlier run.</li>"
        "<li><b>Regions</b> and <b>Problems</b> (bottom): the regions you plan to compile, and "
        "everything that could not be read, with file and line.</li></ul>"
        "<h3>Three workflows</h3><ol>"
        "<li><b>Why did the cache miss?</b> Open the logs of two runs (or a directory with "
        "both). The Cache dock selects the most telling miss and its headline names the "
        "cause; the table below lists every key component that differs.</li>"
        "<li><b>Which regions should be compiled?</b> Select nodes and use <b>Regions › Create "
        "Region from Selection</b>, or <b>Auto-propose Regions</b>; save the plan with <b>File › Save "
        "Project</b> and hand it back to PyTorch with the Python bridge.</li>"
        "<li><b>Is compiled faster than eager?</b> <b>Build › Compile Regions</b> compiles them "
        "with fxscope's engine (the cache remembers every artifact); <b>Build › Profile Graph</b> "
        "times each region compiled and eager, with the median and spread of repeated "
        "runs.</li></ol>"
        "<p>The bundled sample (<code>resources/samples</code>) holds three runs of one program: "
        "cold, warm and with a changed Inductor setting — the app opens on the run whose "
        "misses that setting explains.</p>");
}

} // namespace fxs::app
