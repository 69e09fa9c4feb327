// The Diagnosis dock's tables over one diagnose::Diagnosis: the findings ranked by cost
// (severity, cost, run, where, text) and, for a run of several ranks,
// the rank × compile grid (a row per compile id, a column per rank; a cell says whether that
// rank compiled it and how its cache lookups went; compile ids where the ranks diverge are
// tinted and their cells say how). Read-only; setDiagnosis resets both.
#pragma once

#include "core/diagnose/diagnosis.h"

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace fxs::views {

using DiagnosisPtr = std::shared_ptr<const diagnose::Diagnosis>;

class FindingsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // RemedyColumn: what to do (diagnose::Remedy's text), empty when the finding has none.
    enum Column {
        SeverityColumn,
        CostColumn,
        RunColumn,
        WhereColumn,
        TextColumn,
        RemedyColumn,
        ColumnCount
    };

    explicit FindingsModel(QObject* parent = nullptr);

    void setDiagnosis(DiagnosisPtr diagnosis); // null clears
    // The finding shown in a row (findings keep the diagnosis' order: largest cost first).
    const diagnose::Finding* finding(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    DiagnosisPtr m_diagnosis;
};

class RankGridModel : public QAbstractTableModel {
    Q_OBJECT
public:
    explicit RankGridModel(QObject* parent = nullptr);

    // Shows the ranks of runs[run] of the diagnosis (empty when it has fewer than two).
    void setDiagnosis(DiagnosisPtr diagnosis, int run = 0);
    // The first run of the diagnosis with two or more ranks, -1 when none.
    static int firstMultiRankRun(const diagnose::Diagnosis& d);

    int run() const { return m_run; }
    const std::vector<int>& ranks() const { return m_ranks; }
    const std::vector<model::CompileId>& compileIds() const { return m_ids; }
    // "compiled · 2 cold miss", "compiled · hit, load failure", "not compiled".
    QString cellText(int row, int column) const;
    // The divergence at a row's compile id, null when the ranks agree there.
    const diagnose::Divergence* divergence(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    void rebuild();

    DiagnosisPtr m_diagnosis;
    int m_run = -1;
    std::vector<int> m_ranks;
    std::vector<model::CompileId> m_ids;
    std::vector<std::vector<QString>> m_cells; // [row][column]
};

} // namespace fxs::views
