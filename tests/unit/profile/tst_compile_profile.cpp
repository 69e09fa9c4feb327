// Compile-time profile from chromium events: nesting per thread, compile-id inheritance,
// totals, unmatched/unterminated events, cache time per lookup, Chrome trace export.
#include "core/trace_profile/chrome_trace.h"
#include "core/trace_profile/compile_profile.h"
#include "tests/test_file.h"

#include <QtTest>

FXSCOPE_TEST_BEGIN

using namespace fxs;
using namespace fxs::profile;

namespace {

model::ChromiumEvent ev(const char* name, const char* ph, double ts, const char* compileId = "0/0",
                        std::int64_t tid = 0)
{
    model::ChromiumEvent e;
    e.name = name;
    e.phase = ph;
    e.tsUs = ts;
    e.tid = tid;
    if (compileId) {
        e.compileId = *model::CompileId::parse(compileId);
    }
    return e;
}

} // namespace

class TestCompileProfile : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void nestsBeginEndPairs()
    {
        model::Run run;
        run.events = {ev("dynamo", "B", 0), ev("backend_compile", "B", 100),
                      ev("inductor_compile", "B", 200), ev("inductor_compile", "E", 700),
                      ev("backend_compile", "E", 900), ev("dynamo", "E", 1000),
                      ev("dynamo", "B", 5000, "1/0"), ev("dynamo", "E", 5500, "1/0")};
        const auto p = buildCompileProfile(run);
        QCOMPARE(p.compiles.size(), std::size_t(2));
        const auto& c0 = p.compiles[0];
        QCOMPARE(c0.compileId.toString(), std::string("0/0"));
        QCOMPARE(c0.phases.size(), std::size_t(1));
        QCOMPARE(c0.phases[0].name, std::string("dynamo"));
        QCOMPARE(c0.phases[0].children.size(), std::size_t(1));
        QCOMPARE(c0.phases[0].children[0].children[0].name, std::string("inductor_compile"));
        QCOMPARE(c0.totalMs, 1.0);
        QCOMPARE(c0.totalsMs.at("inductor_compile"), 0.5);
        QCOMPARE(c0.totalsMs.at("backend_compile"), 0.8);
        QCOMPARE(p.compiles[1].totalMs, 0.5);
        QVERIFY(p.diagnostics.empty());
    }

    void inheritsCompileIdAndReportsBadPairs()
    {
        model::Run run;
        run.events = {ev("dynamo", "B", 0), ev("child", "B", 10, nullptr),
                      ev("stray", "E", 20), ev("child", "E", 30, nullptr),
                      ev("open", "B", 40), ev("dynamo", "E", 100)};
        const auto p = buildCompileProfile(run);
        QCOMPARE(p.compiles.size(), std::size_t(1));
        const auto& root = p.compiles[0].phases.at(0);
        QCOMPARE(root.children.size(), std::size_t(2));
        QCOMPARE(root.children[0].name, std::string("child"));
        // "open" never ended: closed by its parent's end and flagged.
        QVERIFY(root.children[1].unterminated);
        QCOMPARE(root.children[1].endUs, 100.0);
        QCOMPARE(p.diagnostics.size(), std::size_t(2)); // stray end + unterminated begin
    }

    void separatesThreads()
    {
        model::Run run;
        run.events = {ev("a", "B", 0, "0/0", 1), ev("b", "B", 5, "0/0", 2),
                      ev("a", "E", 10, "0/0", 1), ev("b", "E", 20, "0/0", 2)};
        const auto p = buildCompileProfile(run);
        QCOMPARE(p.compiles.at(0).phases.size(), std::size_t(2));
        QVERIFY(p.diagnostics.empty());
    }

    void cacheTimePerLookup()
    {
        model::Run run;
        model::CacheLookup miss;
        miss.compileId = *model::CompileId::parse("0/0");
        miss.state = model::CacheState::Miss;
        miss.timeTakenNs = 2'500'000;
        model::CacheLookup hit = miss;
        hit.state = model::CacheState::Hit;
        hit.cache = model::CacheKind::AotAutograd;
        hit.timeTakenNs.reset();
        hit.timeSavedMs = 12.5;
        run.lookups = {miss, hit};
        const auto p = buildCompileProfile(run);
        const auto& cache = p.compiles.at(0).cache;
        QCOMPARE(cache.size(), std::size_t(2));
        QCOMPARE(cache[0].ms, 2.5);
        QVERIFY(!cache[0].saved);
        QCOMPARE(cache[1].cache, std::string("aotautograd"));
        QCOMPARE(cache[1].ms, 12.5);
        QVERIFY(cache[1].saved);
    }

    void exportsValidChromeTrace()
    {
        model::Run run;
        run.events = {ev("dynamo", "B", 0), ev("x", "B", 1), ev("x", "E", 2),
                      ev("dynamo", "E", 3), ev("dynamo", "B", 0, "1/0"),
                      ev("dynamo", "E", 4, "1/0")};
        const auto events = compileProfileTraceEvents(buildCompileProfile(run));
        QCOMPARE(events.size(), std::size_t(3));
        QCOMPARE(events[2].tid, std::int64_t(1)); // one thread per compile id
        QVERIFY(validateChromeTrace(writeChromeTrace(events)).ok());
    }
};

QTEST_GUILESS_MAIN(TestCompileProfile)
#include "tst_compile_profile.moc"

FXSCOPE_TEST_END
