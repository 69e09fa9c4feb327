#include "views/models/cache_state_style.h"

#include <QGuiApplication>
#include <QPainter>
#include <QPixmap>

#include <algorithm>
#include <array>

namespace fxs::views {
namespace {

using model::CacheState;

// Display order of summaries and the severity order of worstState().
constexpr std::array kOrder{CacheState::Miss, CacheState::Bypass, CacheState::Disabled,
                            CacheState::Hit};

QPixmap paintStateIcon(CacheState state, int size, qreal dpr)
{
    QPixmap pixmap(QSize(size, size) * dpr);
    pixmap.setDevicePixelRatio(dpr);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(cacheStateColor(state));
    const QRectF r(1.0, 1.0, size - 2.0, size - 2.0);
    p.drawEllipse(r);
    // A white mark inside keeps states distinguishable without colour vision.
    QPen pen(Qt::white, size / 8.0, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
    p.setPen(pen);
    const qreal s = size;
    switch (state) {
    case CacheState::Hit:
        p.drawPolyline(QPolygonF{{s * 0.28, s * 0.52}, {s * 0.44, s * 0.68}, {s * 0.72, s * 0.34}});
        break;
    case CacheState::Miss:
        p.drawLine(QPointF(s * 0.33, s * 0.33), QPointF(s * 0.67, s * 0.67));
        p.drawLine(QPointF(s * 0.67, s * 0.33), QPointF(s * 0.33, s * 0.67));
        break;
    case CacheState::Bypass:
        p.drawLine(QPointF(s * 0.28, s * 0.5), QPointF(s * 0.72, s * 0.5));
        p.drawLine(QPointF(s * 0.56, s * 0.34), QPointF(s * 0.72, s * 0.5));
        p.drawLine(QPointF(s * 0.56, s * 0.66), QPointF(s * 0.72, s * 0.5));
        break;
    case CacheState::Disabled:
        p.drawLine(QPointF(s * 0.3, s * 0.5), QPointF(s * 0.7, s * 0.5));
        break;
    }
    return pixmap;
}

} // namespace

QColor cacheStateColor(CacheState state)
{
    switch (state) {
    case CacheState::Hit: return QColor(0x2e, 0x9d, 0x4f);
    case CacheState::Miss: return QColor(0xd6, 0x45, 0x41);
    case CacheState::Bypass: return QColor(0xe0, 0x8e, 0x0b);
    case CacheState::Disabled: return QColor(0x8a, 0x8a, 0x8a);
    }
    return Qt::gray;
}

QIcon cacheStateIcon(CacheState state)
{
    static std::array<QIcon, 4> cache;
    auto& icon = cache[static_cast<std::size_t>(state)];
    if (icon.isNull()) {
        const qreal dpr = qGuiApp ? qGuiApp->devicePixelRatio() : 1.0;
        for (int size : {16, 24, 32}) {
            icon.addPixmap(paintStateIcon(state, size, dpr));
        }
    }
    return icon;
}

QString cacheStateText(CacheState state)
{
    return QString::fromUtf8(model::cacheStateName(state).data());
}

QString cacheSummary(const std::vector<CacheState>& states)
{
    QStringList parts;
    for (CacheState s : kOrder) {
        const auto n = std::count(states.begin(), states.end(), s);
        if (n > 0) {
            parts << QStringLiteral("%1 %2").arg(n).arg(cacheStateText(s));
        }
    }
    return parts.join(QStringLiteral(", "));
}

CacheState worstState(const std::vector<CacheState>& states)
{
    for (CacheState s : kOrder) {
        if (std::find(states.begin(), states.end(), s) != states.end()) {
            return s;
        }
    }
    return CacheState::Hit;
}

} // namespace fxs::views
