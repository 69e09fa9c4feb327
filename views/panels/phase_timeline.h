// The compile-phase timeline of the Profile dock: for each compile id of a TORCH_TRACE run one
// lane, its nested chromium phases drawn as horizontal bars over time (ms from the compile's
// first phase), one row per nesting depth. Tooltips name phase, duration and compile id;
// clicking a bar emits phaseClicked. Paints itself; no Qt Charts (nesting needs rows per depth).
#pragma once

#include "core/trace_profile/compile_profile.h"

#include <QString>
#include <QWidget>

#include <vector>

namespace fxs::views {

struct TimelineBar {
    QString compileId;
    QString name;
    int lane = 0;  // index of the compile
    int depth = 0; // 0 for top-level phases
    double startMs = 0; // from the compile's first phase
    double endMs = 0;
    bool unterminated = false;
};

class PhaseTimeline : public QWidget {
    Q_OBJECT
public:
    explicit PhaseTimeline(QWidget* parent = nullptr);

    void setCompileProfile(const profile::CompileProfileResult& compile);
    void clear();
    const std::vector<TimelineBar>& bars() const { return m_bars; }
    int laneCount() const { return static_cast<int>(m_lanes.size()); }
    // Index into bars() of the bar under a widget position; -1 when none.
    int barAt(const QPointF& pos) const;
    QRectF barRect(int index) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void phaseClicked(const QString& compileId, const QString& name);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct Lane {
        QString compileId;
        double totalMs = 0;
        int depths = 1;
        int top = 0; // y of the lane's first row
    };
    void addPhases(const std::vector<profile::Phase>& phases, double originUs, int depth,
                   Lane& lane);
    double plotLeft() const;
    double msToX(double ms) const;
    void paintAxis(class QPainter& p) const;

    std::vector<TimelineBar> m_bars;
    std::vector<Lane> m_lanes;
    double m_maxMs = 0;
    int m_height = 0;
};

} // namespace fxs::views
