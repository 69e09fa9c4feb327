// The graph view's find bar (Ctrl+F): a line edit matched against node names, op targets,
// module paths and attributes, a `.*` regular-expression toggle (Alt+R), next/previous
// (Enter/F3, Shift+Enter/Shift+F3) and a status: "3/12 · module: layers.3.mlp", or why an
// expression is invalid. It only reports; GraphFinder computes matches, GraphView moves.
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QToolButton;

namespace fxs::views {

class FindBar : public QWidget {
    Q_OBJECT
public:
    explicit FindBar(QWidget* parent = nullptr);

    QString text() const;
    void setText(const QString& text);
    void activate(); // show, focus and select the text
    bool isRegex() const;
    void setRegex(bool regex); // emits regexToggled when it changes
    // current is 0-based (-1: none yet); detail: where the current match was found.
    void setStatus(int current, int total, const QString& detail = {});
    void showError(const QString& message); // an invalid expression
    QString statusText() const;

Q_SIGNALS:
    void textChanged(const QString& text);
    void regexToggled(bool regex);
    void nextRequested();
    void previousRequested();
    void closed();

protected:
    void keyPressEvent(QKeyEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QLineEdit* m_edit;
    QToolButton* m_regex;
    QLabel* m_status;
};

} // namespace fxs::views
