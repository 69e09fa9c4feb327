#include "views/graph/graph_exporter.h"

#include "views/graph/graph_scene.h"

#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>

#include <algorithm>

namespace fxs::views {

namespace {

constexpr qreal kMaxPngSide = 16000.0;
constexpr qreal kPngScale = 2.0; // crisp on high-DPI screens and in documents

} // namespace

bool GraphExporter::writeSvg(const QString& path, const QString& title) const
{
    const QRectF source = m_scene.sceneRect();
    if (m_scene.items().isEmpty() || source.isEmpty()) {
        return false;
    }
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(source.size().toSize());
    generator.setViewBox(QRectF(QPointF(0, 0), source.size()));
    generator.setTitle(title);
    generator.setDescription(QStringLiteral("fxscope graph view"));
    QPainter painter;
    if (!painter.begin(&generator)) {
        return false;
    }
    painter.setRenderHint(QPainter::Antialiasing);
    m_scene.render(&painter, QRectF(QPointF(0, 0), source.size()), source);
    painter.end();
    const QFileInfo written(path);
    return written.exists() && written.size() > 0;
}

bool GraphExporter::writePng(const QString& path) const
{
    const QRectF source = m_scene.sceneRect();
    if (m_scene.items().isEmpty() || source.isEmpty()) {
        return false;
    }
    const qreal longest = std::max(source.width(), source.height());
    const qreal scale = std::min(kPngScale, kMaxPngSide / longest);
    const QSize size = (source.size() * scale).toSize().expandedTo(QSize(1, 1));
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(m_scene.style().background);
    QPainter painter(&image);
    painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    m_scene.render(&painter, QRectF(QPointF(0, 0), QSizeF(size)), source);
    painter.end();
    return image.save(path, "PNG");
}

} // namespace fxs::views
