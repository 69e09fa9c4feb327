// Help › Getting Started: a short guide for a first session — what each dock shows and the
// three workflows (why did the cache miss, which regions to compile, is compiled faster than
// eager). Reachable from the Help menu (F1) and from the empty window's welcome page.
#pragma once

#include <QDialog>

namespace fxs::app {

class GettingStartedDialog : public QDialog {
    Q_OBJECT
public:
    explicit GettingStartedDialog(QWidget* parent = nullptr);

    // The guide as HTML (tests read it; the dialog shows it).
    static QString html();
};

} // namespace fxs::app
