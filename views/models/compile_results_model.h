// The Compile results table: one row per compiled region of a graph (region, state, headline,
// compile ms, eager ms, compiled ms, max abs error) with the generated C++ kept per row, and the
// colours of the three region states shared with the graph view's region tints.
// Plain data in (region compiler outcomes); does not compile anything.
#pragma once

#include "core/compile/compile_types.h"

#include <QAbstractTableModel>
#include <QColor>

#include <vector>

namespace fxs::views {

struct CompileResultRow {
    QString region;
    QString module; // the module holding the region's nodes ("model.layers.0.mlp"); may be empty
    compile::RegionState state = compile::RegionState::Fallback;
    QString headline;
    double compileMs = 0;
    double eagerMs = 0;
    double compiledMs = 0;
    double maxAbsErr = 0;
    int nodes = 0;
    int externNodes = 0; // nodes run as LibTorch calls inside the region
    QString key;
    QString source; // generated C++; empty when lowering failed
    QString buildDiagnostics;
    bool timingsFromEntry = false; // eager/compiled ms saved with the cache entry, not timed now
};

CompileResultRow compileResultRow(const compile::RegionOutcome& outcome);

// Why a region gains little, when its make-up says so: most of its nodes run as LibTorch calls
// (GEMMs, convolutions, views), which fxscope calls as eager does. Empty otherwise.
QString regionMakeUpNote(const CompileResultRow& row);

// Hit green, miss amber, fallback grey; readable on light and dark palettes.
QColor regionStateColor(compile::RegionState state);

class CompileResultsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        RegionColumn,
        StateColumn,
        HeadlineColumn,
        CompileMsColumn,
        EagerMsColumn,
        CompiledMsColumn,
        ErrorColumn,
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole + 1 };

    explicit CompileResultsModel(QObject* parent = nullptr);

    void setRows(std::vector<CompileResultRow> rows);
    const std::vector<CompileResultRow>& rows() const { return m_rows; }
    int rowOf(const QString& region) const; // -1 when absent

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QVariant display(const CompileResultRow& row, int column) const;
    QVariant sortValue(const CompileResultRow& row, int column) const;

    std::vector<CompileResultRow> m_rows;
};

} // namespace fxs::views
