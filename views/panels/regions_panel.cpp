#include "views/panels/regions_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace fxs::views {

namespace {

enum Column { kName, kNodes, kInputs, kOutputs, kBytesIn, kBytesOut, kAnnotation, kColumns };

QString bytesText(std::int64_t bytes, bool exact)
{
    const QString prefix = exact ? QString() : QStringLiteral("≥");
    if (bytes >= 1'000'000) {
        return prefix + QString::number(bytes / 1e6, 'f', 2) + QStringLiteral(" MB");
    }
    return prefix + QString::number(bytes / 1e3, 'f', 1) + QStringLiteral(" kB");
}

QTableWidgetItem* cell(const QString& text, const QString& id = {})
{
    auto* item = new QTableWidgetItem(text);
    item->setFlags(item->flags() & ~Qt::ItemIsEditable);
    if (!id.isEmpty()) {
        item->setData(Qt::UserRole, id);
    }
    return item;
}

} // namespace

RegionsPanel::RegionsPanel(QWidget* parent)
    : QWidget(parent), m_table(new QTableWidget(0, kColumns, this)), m_message(new QLabel(this)),
      m_rename(new QPushButton(tr("Rename"), this)), m_delete(new QPushButton(tr("Delete"), this)),
      m_merge(new QPushButton(tr("Merge"), this)),
      m_split(new QPushButton(tr("Split off selection"), this)),
      m_undo(new QPushButton(tr("Undo"), this)), m_redo(new QPushButton(tr("Redo"), this))
{
    m_table->setHorizontalHeaderLabels({tr("Region"), tr("Nodes"), tr("Inputs"), tr("Outputs"),
                                        tr("Bytes in"), tr("Bytes out"), tr("Annotation")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* buttons = new QHBoxLayout;
    for (auto* b : {m_rename, m_delete, m_merge, m_split, m_undo, m_redo}) {
        buttons->addWidget(b);
    }
    buttons->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(buttons);
    layout->addWidget(m_table);
    layout->addWidget(m_message);
    connect(m_table, &QTableWidget::itemSelectionChanged, this,
            &RegionsPanel::onTableSelectionChanged);
    connect(m_rename, &QPushButton::clicked, this, &RegionsPanel::renameSelected);
    connect(m_delete, &QPushButton::clicked, this, &RegionsPanel::deleteSelected);
    connect(m_merge, &QPushButton::clicked, this, &RegionsPanel::mergeSelected);
    connect(m_split, &QPushButton::clicked, this, &RegionsPanel::splitSelected);
    connect(m_undo, &QPushButton::clicked, this, [this] {
        if (m_doc) {
            m_doc->undoStack()->undo();
        }
    });
    connect(m_redo, &QPushButton::clicked, this, [this] {
        if (m_doc) {
            m_doc->undoStack()->redo();
        }
    });
    refresh();
}

void RegionsPanel::setDocument(RegionDocument* doc)
{
    if (m_doc) {
        disconnect(m_doc, nullptr, this, nullptr);
        disconnect(m_doc->undoStack(), nullptr, this, nullptr);
    }
    m_doc = doc;
    if (m_doc) {
        connect(m_doc, &RegionDocument::regionsChanged, this, &RegionsPanel::refresh);
        // Commands change the regions inside QUndoStack::push, before canUndo turns true.
        connect(m_doc->undoStack(), &QUndoStack::indexChanged, this,
                &RegionsPanel::onSelectionChanged);
        connect(m_doc, &RegionDocument::editRefused, this, &RegionsPanel::showRefusal);
        connect(m_doc, &QObject::destroyed, this, [this] {
            m_doc = nullptr; // gone: nothing of it to disconnect
            setDocument(nullptr);
        });
    }
    m_message->clear();
    refresh();
}

void RegionsPanel::setSelectedNodes(std::vector<graph::NodeId> nodes)
{
    m_selectedNodes = std::move(nodes);
    onSelectionChanged();
}

QStringList RegionsPanel::selectedRegionIds() const
{
    QStringList ids;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        if (m_table->item(row, kName)->isSelected()) {
            ids << m_table->item(row, kName)->data(Qt::UserRole).toString();
        }
    }
    return ids;
}

int RegionsPanel::rowCount() const { return m_table->rowCount(); }

void RegionsPanel::refresh()
{
    const QSignalBlocker block(m_table);
    m_table->setRowCount(0);
    if (m_doc) {
        const auto& regions = m_doc->regions();
        m_table->setRowCount(static_cast<int>(regions.size()));
        for (int row = 0; row < static_cast<int>(regions.size()); ++row) {
            const auto& r = regions[row];
            const QString id = QString::fromStdString(r.id);
            m_table->setItem(row, kName, cell(QString::fromStdString(r.label()), id));
            m_table->setItem(row, kNodes, cell(QString::number(r.nodeCount())));
            m_table->setItem(row, kInputs, cell(QString::number(r.inputs.size())));
            m_table->setItem(row, kOutputs, cell(QString::number(r.outputs.size())));
            m_table->setItem(row, kBytesIn, cell(bytesText(r.bytesIn, r.bytesExact)));
            m_table->setItem(row, kBytesOut, cell(bytesText(r.bytesOut, r.bytesExact)));
            m_table->setItem(row, kAnnotation,
                             cell(QString::fromStdString(r.annotation.value_or(r.options))));
        }
    }
    onSelectionChanged();
}

void RegionsPanel::onSelectionChanged()
{
    const QStringList ids = selectedRegionIds();
    const bool doc = m_doc != nullptr;
    m_rename->setEnabled(doc && ids.size() == 1);
    m_delete->setEnabled(doc && !ids.isEmpty());
    m_merge->setEnabled(doc && ids.size() == 2);
    m_split->setEnabled(doc && ids.size() == 1 && !m_selectedNodes.empty());
    m_undo->setEnabled(doc && m_doc->undoStack()->canUndo());
    m_redo->setEnabled(doc && m_doc->undoStack()->canRedo());
}

void RegionsPanel::onTableSelectionChanged()
{
    onSelectionChanged();
    const QStringList ids = selectedRegionIds();
    if (!m_doc || ids.isEmpty()) {
        return;
    }
    std::vector<graph::NodeId> nodes;
    for (const auto& r : m_doc->regions()) {
        if (ids.contains(QString::fromStdString(r.id))) {
            nodes.insert(nodes.end(), r.nodes.begin(), r.nodes.end());
        }
    }
    std::sort(nodes.begin(), nodes.end());
    Q_EMIT regionActivated(nodes);
}

void RegionsPanel::renameSelected()
{
    const QStringList ids = selectedRegionIds();
    if (!m_doc || ids.size() != 1) {
        return;
    }
    bool ok = false;
    const QString name = QInputDialog::getText(this, tr("Rename region"), tr("Name:"),
                                               QLineEdit::Normal, ids.front(), &ok);
    if (ok) {
        m_doc->renameRegion(ids.front(), name);
    }
}

void RegionsPanel::deleteSelected()
{
    if (!m_doc) {
        return;
    }
    const QStringList ids = selectedRegionIds();
    m_doc->undoStack()->beginMacro(tr("Delete regions"));
    for (const QString& id : ids) {
        m_doc->deleteRegion(id);
    }
    m_doc->undoStack()->endMacro();
}

void RegionsPanel::mergeSelected()
{
    const QStringList ids = selectedRegionIds();
    if (m_doc && ids.size() == 2) {
        m_doc->mergeRegions(ids[0], ids[1]);
    }
}

void RegionsPanel::splitSelected()
{
    const QStringList ids = selectedRegionIds();
    if (m_doc && ids.size() == 1) {
        m_doc->splitRegion(ids.front(), m_selectedNodes);
    }
}

void RegionsPanel::showRefusal(const QString& reason, const std::vector<graph::NodeId>& highlight)
{
    m_message->setText(tr("Refused: %1").arg(reason));
    Q_EMIT highlightRequested(highlight);
}

} // namespace fxs::views
