#include "core/runtime/launch_context.h"

#include <algorithm>
#include <map>

namespace fxs::runtime {

LaunchIndex::LaunchIndex(const ProfileTrace& trace) : m_trace(trace)
{
    std::unordered_map<std::int64_t, std::size_t> launchByCorrelation;
    struct Thread {
        std::vector<std::size_t> intervals, launches;
    };
    std::map<std::pair<std::int64_t, std::int64_t>, Thread> threads;
    for (std::size_t i = 0; i < trace.events.size(); ++i) {
        const auto& e = trace.events[i];
        if (e.kind == EventKind::Kernel) {
            m_kernels.push_back(i);
        } else if (e.kind == EventKind::Launch) {
            launchByCorrelation.emplace(e.correlation, i);
        } else if (e.kind == EventKind::CpuOp || e.kind == EventKind::Annotation) {
            threads[{e.pid, e.tid}].intervals.push_back(i);
        }
    }
    m_launchOfKernel.assign(m_kernels.size(), -1);
    for (std::size_t k = 0; k < m_kernels.size(); ++k) {
        const auto it = launchByCorrelation.find(trace.events[m_kernels[k]].correlation);
        if (it != launchByCorrelation.end()) {
            m_launchOfKernel[k] = static_cast<std::int64_t>(it->second);
            m_kernelsOfLaunch.emplace_back(it->second, k);
        }
    }
    std::sort(m_kernelsOfLaunch.begin(), m_kernelsOfLaunch.end());
    std::size_t last = SIZE_MAX;
    for (const auto& [launch, k] : m_kernelsOfLaunch) {
        if (launch != last) {
            const auto& e = trace.events[launch];
            threads[{e.pid, e.tid}].launches.push_back(launch);
            last = launch;
        }
    }
    for (auto& [id, t] : threads) {
        sweepThread(t.intervals, t.launches);
    }
}

// A graph never calls itself: a call of the key of the innermost open call is the same call
// recorded twice (a user_annotation and a cpu_op of one name), not a second one.
bool LaunchIndex::sameCallOpen(const std::vector<std::size_t>& stack,
                               const std::vector<std::int64_t>& callOf, std::size_t iv) const
{
    for (std::size_t p = stack.size(); p > 0; --p) {
        if (callOf[p - 1] >= 0) {
            const auto& open = m_trace.events[m_calls[callOf[p - 1]].annotation];
            return m_trace.nameOf(open) == m_trace.nameOf(m_trace.events[iv]);
        }
    }
    return false;
}

// Intervals nest on one thread; a launch sees the stack of intervals open at its start.
void LaunchIndex::sweepThread(const std::vector<std::size_t>& intervalsIn,
                             const std::vector<std::size_t>& launchesIn)
{
    const auto& ev = m_trace.events;
    auto intervals = intervalsIn;
    auto launches = launchesIn;
    std::sort(intervals.begin(), intervals.end(), [&](std::size_t a, std::size_t b) {
        return ev[a].ts != ev[b].ts ? ev[a].ts < ev[b].ts : ev[a].dur > ev[b].dur;
    });
    std::sort(launches.begin(), launches.end(),
              [&](std::size_t a, std::size_t b) { return ev[a].ts < ev[b].ts; });
    std::vector<std::size_t> stack;
    std::vector<std::int64_t> callOf; // per stack entry: its GraphCall, or -1
    auto popUntil = [&](double t) {
        while (!stack.empty() && ev[stack.back()].end() < t) {
            stack.pop_back();
            callOf.pop_back();
        }
    };
    std::size_t i = 0;
    for (auto l : launches) {
        const double t = ev[l].ts;
        for (; i < intervals.size() && ev[intervals[i]].ts <= t; ++i) {
            const auto iv = intervals[i];
            popUntil(ev[iv].ts);
            std::int64_t call = -1;
            if (ev[iv].kind == EventKind::Annotation &&
                !compiledGraphKey(m_trace.nameOf(ev[iv])).empty() &&
                !sameCallOpen(stack, callOf, iv)) {
                call = static_cast<std::int64_t>(m_calls.size());
                m_calls.push_back(GraphCall{iv, {}});
            }
            stack.push_back(iv);
            callOf.push_back(call);
        }
        popUntil(t);
        Context c;
        std::size_t p = stack.size();
        while (p > 0 && callOf[p - 1] < 0) {
            --p;
        }
        if (p > 0) {
            c.call = callOf[p - 1];
            for (std::size_t q = p; q < stack.size(); ++q) {
                if (ev[stack[q]].kind == EventKind::CpuOp) {
                    c.group = static_cast<std::int64_t>(stack[q]);
                    break;
                }
            }
            m_calls[c.call].launches.push_back(l);
        } else {
            // ProfilerStep#N wraps everything: it names the step, not the work.
            auto isStep = [&](std::size_t s) {
                return profilerStepNumber(m_trace.nameOf(ev[s])) >= 0;
            };
            for (auto s : stack) {
                if (ev[s].kind == EventKind::Annotation && !isStep(s)) {
                    c.outside = static_cast<std::int64_t>(s);
                    break;
                }
            }
            for (std::size_t q = 0; c.outside < 0 && q < stack.size(); ++q) {
                if (!isStep(stack[q])) {
                    c.outside = static_cast<std::int64_t>(stack[q]);
                }
            }
        }
        m_context[l] = c;
    }
    // Calls with no launch still count as calls (once: not inside an open call of their key).
    for (; i < intervals.size(); ++i) {
        const auto iv = intervals[i];
        popUntil(ev[iv].ts);
        std::int64_t call = -1;
        if (ev[iv].kind == EventKind::Annotation &&
            !compiledGraphKey(m_trace.nameOf(ev[iv])).empty() &&
            !sameCallOpen(stack, callOf, iv)) {
            call = static_cast<std::int64_t>(m_calls.size());
            m_calls.push_back(GraphCall{iv, {}});
        }
        stack.push_back(iv);
        callOf.push_back(call);
    }
}

std::optional<std::size_t> LaunchIndex::launchOfKernel(std::size_t k) const
{
    const auto l = m_launchOfKernel[k];
    return l < 0 ? std::nullopt : std::optional<std::size_t>(static_cast<std::size_t>(l));
}

std::vector<std::size_t> LaunchIndex::kernelsOf(std::size_t launch) const
{
    std::vector<std::size_t> out;
    auto it = std::lower_bound(m_kernelsOfLaunch.begin(), m_kernelsOfLaunch.end(),
                               std::make_pair(launch, std::size_t(0)));
    for (; it != m_kernelsOfLaunch.end() && it->first == launch; ++it) {
        out.push_back(it->second);
    }
    return out;
}

std::int64_t LaunchIndex::groupOf(std::size_t launch) const
{
    const auto it = m_context.find(launch);
    return it == m_context.end() ? -1 : it->second.group;
}

std::string LaunchIndex::outsideLabel(std::size_t launch) const
{
    const auto it = m_context.find(launch);
    if (it == m_context.end() || it->second.outside < 0) {
        return {};
    }
    return m_trace.nameOf(m_trace.events[static_cast<std::size_t>(it->second.outside)]);
}

std::vector<double> LaunchIndex::stepStarts(std::string& from) const
{
    std::vector<double> starts;
    for (const auto& e : m_trace.events) {
        if ((e.kind == EventKind::CpuOp || e.kind == EventKind::Annotation) &&
            profilerStepNumber(m_trace.nameOf(e)) >= 0) {
            starts.push_back(e.ts);
        }
    }
    if (!starts.empty()) {
        from = "ProfilerStep#N annotations";
        std::sort(starts.begin(), starts.end());
        return starts;
    }
    std::map<std::string, std::vector<double>> byKey;
    for (const auto& c : m_calls) {
        const auto& e = m_trace.events[c.annotation];
        byKey[std::string(compiledGraphKey(m_trace.nameOf(e)))].push_back(e.ts);
    }
    const std::vector<double>* best = nullptr;
    std::string bestKey;
    for (auto& [key, ts] : byKey) {
        std::sort(ts.begin(), ts.end());
        if (!best || ts.size() > best->size() ||
            (ts.size() == best->size() && ts.front() < best->front())) {
            best = &ts;
            bestKey = key;
        }
    }
    if (!best) {
        from = "no ProfilerStep#N and no compiled graph call: the trace is one step";
        return {};
    }
    from = "no ProfilerStep#N: one step per call of graph " + bestKey + " (its " +
           std::to_string(best->size()) + " calls start the steps)";
    return *best;
}

} // namespace fxs::runtime
