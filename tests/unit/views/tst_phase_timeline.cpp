// The Profile dock's compile-phase timeline on the shared gpt_cold trace: one bar per chromium
// B/E pair of compile 0/0 (101, counted in the log with a separate script: 205 chromium events
// = 101 B + 101 E + 3 instants), 11 of them top-level, nesting 13 deep; children drawn inside
// their parent's time span; hit testing returns the deepest bar; clicking emits the phase.
#include "core/io/torch_trace_reader.h"
#include "core/trace_profile/compile_profile.h"
#include "tests/test_file.h"
#include "views/panels/phase_timeline.h"
#include "views/panels/profile_panel.h"

#include <QSignalSpy>
#include <QtTest>

#include <algorithm>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using fxs::views::PhaseTimeline;

class TestPhaseTimeline : public QObject {
    Q_OBJECT

private:
    profile::CompileProfileResult m_profile;

private Q_SLOTS:
    void initTestCase()
    {
        const auto read = io::readTorchTracePath(FXSCOPE_TEST_DATA "/fixtures/traces/gpt_cold");
        m_profile = profile::buildCompileProfile(read.run);
        QCOMPARE(m_profile.compiles.size(), std::size_t(1));
    }

    void oneBarPerPhase()
    {
        PhaseTimeline t;
        t.resize(900, 400);
        t.setCompileProfile(m_profile);
        QCOMPARE(t.laneCount(), 1);
        QCOMPARE(int(t.bars().size()), 101);
        const auto top = std::count_if(t.bars().begin(), t.bars().end(),
                                       [](const auto& b) { return b.depth == 0; });
        QCOMPARE(int(top), 11);
        int maxDepth = 0;
        for (const auto& b : t.bars()) {
            maxDepth = std::max(maxDepth, b.depth);
            QCOMPARE(b.compileId, QStringLiteral("0/0"));
            QVERIFY(b.endMs >= b.startMs);
        }
        QCOMPARE(maxDepth, 12);
        // The first bar is the frame's dynamo phase, starting the timeline at 0 ms.
        QCOMPARE(t.bars().front().name, QStringLiteral("dynamo"));
        QCOMPARE(t.bars().front().startMs, 0.0);
        QVERIFY(std::abs((t.bars().front().endMs - t.bars().front().startMs) - 13531.136) < 0.01);
    }

    void childrenInsideParentsAndHitTesting()
    {
        PhaseTimeline t;
        t.resize(900, 400);
        t.setCompileProfile(m_profile);
        const QRectF dynamo = t.barRect(0);
        const QRectF child = t.barRect(1); // bars are listed depth first: dynamo's first child
        QCOMPARE(t.bars()[1].depth, 1);
        QVERIFY(child.left() >= dynamo.left() - 0.01 && child.right() <= dynamo.right() + 1.01);
        QVERIFY(child.top() > dynamo.top());
        QCOMPARE(t.barAt(child.center()), 1);
        QCOMPARE(t.barAt(QPointF(dynamo.left() + 0.5, dynamo.center().y())), 0);
        QCOMPARE(t.barAt(QPointF(2, 2)), -1); // the axis row
        QSignalSpy clicked(&t, &PhaseTimeline::phaseClicked);
        QTest::mouseClick(&t, Qt::LeftButton, {}, child.center().toPoint());
        QCOMPARE(clicked.size(), 1);
        QCOMPARE(clicked.first().at(1).toString(), t.bars()[1].name);
    }

    void panelFeedsTheTimeline()
    {
        views::ProfilePanel panel;
        panel.setCompileProfile(m_profile);
        QCOMPARE(int(panel.phaseTimeline()->bars().size()), 101);
        panel.setCompileProfile({});
        QCOMPARE(int(panel.phaseTimeline()->bars().size()), 0);
    }
};

QTEST_MAIN(TestPhaseTimeline)
#include "tst_phase_timeline.moc"

FXSCOPE_TEST_END
