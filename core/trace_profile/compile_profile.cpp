#include "core/trace_profile/compile_profile.h"

#include "core/trace_profile/chrome_trace.h"

#include <algorithm>
#include <map>
#include <utility>

namespace fxs::profile {

namespace {

// An open phase on one thread's stack, with the compile id it belongs to.
struct Open {
    Phase phase;
    model::CompileId compileId;
};

class TimelineBuilder {
public:
    explicit TimelineBuilder(CompileProfileResult& out) : m_out(out) {}

    void begin(const model::ChromiumEvent& e)
    {
        auto& stack = m_stacks[{e.pid, e.tid}];
        Open open;
        open.phase.name = e.name;
        open.phase.category = e.category;
        open.phase.startUs = e.tsUs;
        open.compileId = e.compileId.valid() || stack.empty() ? e.compileId
                                                              : stack.back().compileId;
        stack.push_back(std::move(open));
        noteTime(stack.back().compileId, e.tsUs);
    }

    void end(const model::ChromiumEvent& e, const std::string& file)
    {
        auto& stack = m_stacks[{e.pid, e.tid}];
        auto it = std::find_if(stack.rbegin(), stack.rend(),
                               [&](const Open& o) { return o.phase.name == e.name; });
        if (it == stack.rend()) {
            m_out.diagnostics.warning(file, e.line,
                                      "chromium event end without a begin: '" + e.name + "'");
            return;
        }
        // Phases opened after the matching begin and never closed end here too.
        const auto depth = static_cast<std::size_t>(std::distance(it, stack.rend())) - 1;
        while (stack.size() > depth + 1) {
            closeTop(stack, e.tsUs, true, file);
        }
        closeTop(stack, e.tsUs, false, file);
    }

    void instant(const model::ChromiumEvent& e) { noteTime(e.compileId, e.tsUs); }

    void finish(const std::string& file)
    {
        for (auto& [key, stack] : m_stacks) {
            while (!stack.empty()) {
                const double endUs = m_lastTs[stack.back().compileId.toString()];
                closeTop(stack, std::max(endUs, stack.back().phase.startUs), true, file);
            }
        }
    }

    CompileProfile& profileFor(const model::CompileId& id)
    {
        const std::string key = id.toString();
        auto it = m_index.find(key);
        if (it == m_index.end()) {
            it = m_index.emplace(key, m_out.compiles.size()).first;
            m_out.compiles.push_back({});
            m_out.compiles.back().compileId = id;
        }
        return m_out.compiles[it->second];
    }

private:
    void noteTime(const model::CompileId& id, double ts)
    {
        double& last = m_lastTs[id.toString()];
        last = std::max(last, ts);
    }

    void closeTop(std::vector<Open>& stack, double endUs, bool unterminated,
                  const std::string& file)
    {
        Open open = std::move(stack.back());
        stack.pop_back();
        open.phase.endUs = endUs;
        open.phase.unterminated = unterminated;
        if (unterminated) {
            m_out.diagnostics.warning(file, 0, "chromium event '" + open.phase.name +
                                                   "' has no end; closed at " +
                                                   std::to_string(endUs) + " us");
        }
        noteTime(open.compileId, endUs);
        if (!stack.empty()) {
            stack.back().phase.children.push_back(std::move(open.phase));
        } else {
            profileFor(open.compileId).phases.push_back(std::move(open.phase));
        }
    }

    CompileProfileResult& m_out;
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<Open>> m_stacks;
    std::map<std::string, double> m_lastTs;
    std::map<std::string, std::size_t> m_index;
};

void addTotals(const Phase& p, std::map<std::string, double>& totals)
{
    totals[p.name] += p.ms();
    for (const auto& c : p.children) {
        addTotals(c, totals);
    }
}

CacheTime cacheTimeOf(const model::CacheLookup& l)
{
    CacheTime t;
    t.cache = std::string(model::cacheKindName(l.cache));
    t.state = std::string(model::cacheStateName(l.state));
    t.key = l.key.value_or("");
    if (l.state == model::CacheState::Hit) {
        t.saved = true;
        if (l.timeSavedNs) {
            t.ms = static_cast<double>(*l.timeSavedNs) / 1e6;
        } else if (l.timeSavedMs) {
            t.ms = *l.timeSavedMs;
        }
    } else if (l.timeTakenNs) {
        t.ms = static_cast<double>(*l.timeTakenNs) / 1e6;
    }
    return t;
}

} // namespace

CompileProfileResult buildCompileProfile(const model::Run& run, std::optional<int> rank)
{
    CompileProfileResult out;
    TimelineBuilder builder(out);
    const std::string file = run.files.empty() ? run.path : run.files.front();
    const auto skip = [&rank](int r) { return rank && r != *rank; };
    for (const auto& e : run.events) {
        if (skip(e.rank)) {
            continue;
        }
        if (e.phase == "B") {
            builder.begin(e);
        } else if (e.phase == "E") {
            builder.end(e, file);
        } else {
            builder.instant(e);
        }
    }
    builder.finish(file);
    for (const auto& l : run.lookups) {
        if (!skip(l.rank)) {
            builder.profileFor(l.compileId).cache.push_back(cacheTimeOf(l));
        }
    }
    for (const auto& m : run.metrics) {
        if (!skip(m.rank)) {
            builder.profileFor(m.compileId).metrics.push_back(m);
        }
    }
    for (auto& c : out.compiles) {
        std::sort(c.phases.begin(), c.phases.end(),
                  [](const Phase& a, const Phase& b) { return a.startUs < b.startUs; });
        c.totalMs = 0.0;
        for (const auto& p : c.phases) {
            c.totalMs += p.ms();
            addTotals(p, c.totalsMs);
        }
    }
    return out;
}

namespace {

void appendEvents(const Phase& p, std::int64_t tid, const std::string& compileId,
                  std::vector<TraceEvent>& out)
{
    TraceEvent e;
    e.name = p.name;
    e.category = p.category.empty() ? "compile" : p.category;
    e.tsUs = p.startUs;
    e.durUs = std::max(0.0, p.endUs - p.startUs);
    e.pid = 0;
    e.tid = tid;
    e.args.emplace_back("compile_id", compileId);
    out.push_back(std::move(e));
    for (const auto& c : p.children) {
        appendEvents(c, tid, compileId, out);
    }
}

} // namespace

std::vector<TraceEvent> compileProfileTraceEvents(const CompileProfileResult& profile)
{
    std::vector<TraceEvent> out;
    std::int64_t tid = 0;
    for (const auto& c : profile.compiles) {
        for (const auto& p : c.phases) {
            appendEvents(p, tid, c.compileId.toString(), out);
        }
        ++tid;
    }
    return out;
}

} // namespace fxs::profile
