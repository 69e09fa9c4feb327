// The graph view's find bar (Ctrl+F): a line edit matched against node names and op targets,
// with next/previous (Enter/F3, Shift+F3) and a "3 / 12" counter. It only reports; GraphView
// computes matches and moves the selection.
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;

namespace fxs::views {

class FindBar : public QWidget {
    Q_OBJECT
public:
    explicit FindBar(QWidget* parent = nullptr);

    QString text() const;
    void setText(const QString& text);
    void activate(); // show, focus and select the text
    void setStatus(int current, int total); // current is 0-based; -1: none yet

Q_SIGNALS:
    void textChanged(const QString& text);
    void nextRequested();
    void previousRequested();
    void closed();

protected:
    void keyPressEvent(QKeyEvent* event) override;

private:
    QLineEdit* m_edit;
    QLabel* m_status;
};

} // namespace fxs::views
