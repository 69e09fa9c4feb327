#include "core/diagnose/findings.h"

#include "core/diagnose/cache_classes.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

namespace fxs::diagnose {

namespace {

std::string compileWhere(int rank, const model::CompileId& id)
{
    std::string s = rank >= 0 ? "rank " + std::to_string(rank) + " " : std::string();
    return s + (id.valid() ? id.toString() : std::string("?"));
}

std::string joinIds(const std::vector<model::CompileId>& ids, std::string_view sep)
{
    std::string s;
    for (const auto& id : ids) {
        s += (s.empty() ? "" : std::string(sep)) + id.toString();
    }
    return s;
}

void addFrames(const Diagnosis& d, std::vector<Finding>& out)
{
    double all = 0.0;
    for (const auto& f : d.frames) {
        all += f.totalS;
    }
    for (const auto& f : d.frames) {
        if (f.totalS <= 0.0 || f.totalS < 0.1 * all) {
            continue; // the frames that make up most of the start-up
        }
        const auto& p = f.phases;
        std::string text = "Frame " + std::to_string(f.frameId);
        if (!f.function.empty()) {
            text += " (" + f.function + ")";
        }
        text += " compiled " + std::to_string(f.compileIds.size()) + "\u00d7 in " +
                costText(f.totalS) + ": Dynamo " + costText(p.dynamoS) + ", AOT " +
                costText(p.aotS) + ", Inductor " + costText(p.inductorS) + ", cache " +
                costText(p.cacheS);
        Finding fd{Severity::Info, f.totalS, text, shortLocation(f.file, f.line), {}};
        fd.link = {Link::Kind::Compile, f.run, -1, f.rank, f.compileIds.front(), f.file, f.line};
        if (f.rank >= 0) {
            fd.where = compileWhere(f.rank, f.compileIds.front()) + " " + fd.where;
        }
        out.push_back(std::move(fd));
    }
}

// What avoids a recompile: a size that changes is marked dynamic before the first call; a
// dtype that changes is kept. Nothing for other guards (their text says what failed).
std::optional<Remedy> recompileRemedy(const Recompile& r)
{
    if (r.input.empty()) {
        return std::nullopt;
    }
    const std::string action = r.sourceLine > 0 ? "open_source" : "";
    if (r.mismatch == "size" && r.dim >= 0) {
        return Remedy{"mark_dynamic",
                      "Mark the dimension dynamic before the first call: "
                      "torch._dynamo.mark_dynamic(" + r.input + ", " + std::to_string(r.dim) +
                          ")" + (r.expected.empty() ? "" : " (it was " + r.expected + ", then " +
                                                               r.actual + ")"),
                      action};
    }
    if (r.mismatch == "dtype") {
        return Remedy{"keep_dtype",
                      "Keep " + r.input + "'s dtype the same between calls" +
                          (r.expected.empty() ? "" : " (" + r.expected + " \u2192 " + r.actual +
                                                          ")") +
                          ", or cast it before the compiled function",
                      action};
    }
    return std::nullopt;
}

void addRecompiles(const Diagnosis& d, std::vector<Finding>& out)
{
    for (const auto& r : d.recompiles) {
        std::string text = "Recompile " + r.compileId.toString() + ": " + r.reason;
        if (!r.action.empty()) {
            text += " \u2192 " + r.action;
        }
        std::string where = r.sourceLine > 0 ? shortLocation(r.sourceFile, r.sourceLine)
                                             : compileWhere(r.rank, r.compileId);
        Finding f{Severity::Warning, r.costS, text, where, r.link};
        f.remedy = recompileRemedy(r);
        out.push_back(std::move(f));
    }
}

void addGraphBreaks(const Diagnosis& d, std::vector<Finding>& out)
{
    for (const auto& b : d.graphBreaks) {
        std::string text = "Graph break: " + b.reason;
        if (!b.gbId.empty()) {
            text += " [" + b.gbId + "]";
        }
        if (!b.userFrame.code.empty()) {
            text += " at `" + b.userFrame.code + "`";
        }
        text += "; splits " + joinIds(b.compileIds, " | ");
        if (b.count > 1) {
            text += " (logged " + std::to_string(b.count) + "\u00d7)";
        }
        Link link{Link::Kind::Source, 0, -1, -1, {}, b.userFrame.file, b.userFrame.line};
        if (!b.graphs.empty()) {
            link.run = b.graphs.front().run;
        }
        Finding f{Severity::Warning, b.costS, text,
                  shortLocation(b.userFrame.file, b.userFrame.line), link};
        if (!b.hints.empty()) {
            f.remedy = Remedy{"graph_break_hint", b.hints.front(),
                              b.userFrame.line > 0 ? "open_source" : ""};
        }
        out.push_back(std::move(f));
    }
}

std::string firstLine(const std::string& text)
{
    return text.substr(0, text.find('\n'));
}

// A failed compile runs uncompiled: an error, whatever its compile time.
void addFailures(const Diagnosis& d, std::vector<Finding>& out)
{
    for (const auto& f : d.failures) {
        std::string text = "Compile failed";
        if (!f.frame.empty()) {
            text += " in " + f.frame;
        }
        text += ": " + (f.failType.empty() ? std::string("unknown error") : f.failType);
        if (!f.reason.empty()) {
            text += ": " + firstLine(f.reason);
        }
        std::string where = compileWhere(f.rank, f.compileId);
        if (!f.userFrame.file.empty()) {
            where += " " + shortLocation(f.userFrame.file, f.userFrame.line);
        }
        out.push_back({Severity::Error, f.costS, text, where, f.link});
    }
}

void addExportFailures(const Diagnosis& d, std::vector<Finding>& out)
{
    for (const auto& f : d.exportFailures) {
        Link link{Link::Kind::Source, f.run, -1, f.rank, f.compileId, f.userFrame.file,
                  f.userFrame.line};
        out.push_back({Severity::Error, 0.0, "Export: " + f.reason,
                       shortLocation(f.userFrame.file, f.userFrame.line), link});
    }
}

std::string runLabel(const Diagnosis& d, int run)
{
    if (run < 0 || std::size_t(run) >= d.runs.size()) {
        return "run " + std::to_string(run);
    }
    const std::string name = shortLocation(d.runs[std::size_t(run)].source, 0);
    return name.empty() ? "run " + std::to_string(run) : name;
}

// Misses explained against the run before (a key component changed), one finding per run and
// cause: "3_config.log: 3 cache misses — inductor_config[max_fusion_size] 64 → 32 vs
// 2_warm.log", costing the compile time they took.
void addKeyChanges(const Diagnosis& d, std::vector<Finding>& out)
{
    std::map<std::tuple<int, int, std::string>, std::vector<const CacheRow*>> groups;
    for (const auto& row : d.cache) {
        if (row.changedSinceRun && !row.sameGraphUpToNames) {
            groups[{row.run, *row.changedSinceRun, row.cause}].push_back(&row);
        }
    }
    for (const auto& [key, rows] : groups) {
        const auto& [run, since, cause] = key;
        double cost = 0.0;
        for (const auto* r : rows) {
            cost += r->costS;
        }
        const std::size_t n = rows.size();
        const std::string text = runLabel(d, run) + ": " + std::to_string(n) + " cache miss" +
                                 (n == 1 ? "" : "es") + " \u2014 " + cause + " vs " +
                                 runLabel(d, since);
        const CacheRow& first = *rows.front();
        Finding f{Severity::Warning, cost, text, compileWhere(first.rank, first.compileId),
                  {Link::Kind::Lookup, first.run, static_cast<int>(first.lookup), first.rank,
                   first.compileId, {}, 0}};
        f.remedy = Remedy{"keep_key_component",
                          "Keep this setting as in " + runLabel(d, since) +
                              " to reuse its compiled code: it is part of the cache key",
                          "open_lookup"};
        out.push_back(std::move(f));
    }
}

// Load failures grouped per compile (an AOT entry and the FX graphs it needed are one event).
void addCache(const Diagnosis& d, std::vector<Finding>& out)
{
    std::map<std::tuple<int, int, model::CompileId>, std::vector<const CacheRow*>> failures;
    bool componentsNoted = false;
    for (const auto& row : d.cache) {
        const Link link{Link::Kind::Lookup, row.run, static_cast<int>(row.lookup), row.rank,
                        row.compileId, {}, 0};
        const std::string where = compileWhere(row.rank, row.compileId);
        const std::string cache(model::cacheKindName(row.cache));
        if (row.cls == CacheClass::LoadFailure) {
            failures[{row.run, row.rank, row.compileId.withoutAttempt()}].push_back(&row);
        } else if (row.cls == CacheClass::Bypass) {
            out.push_back({Severity::Warning, row.costS, "Cache bypass (" + cache + "): " +
                           row.headline, where, link});
        } else if (row.cls == CacheClass::Disabled) {
            out.push_back({Severity::Info, row.costS, "Cache disabled (" + cache + "): " +
                           row.headline, where, link});
        } else if (row.cls == CacheClass::GuardMiss) {
            out.push_back({Severity::Info, row.costS, "Cache guard miss (" + cache + "): " +
                           row.headline, where, link});
        } else if (row.sameGraphUpToNames) {
            out.push_back({Severity::Warning, row.costS, "Cache miss (" + cache + "): " +
                           row.headline, where, link});
        }
        if (row.componentsMissing && !componentsNoted) {
            componentsNoted = true;
            out.push_back({Severity::Warning, 0.0,
                           "Cache keys were logged without their components: " +
                               std::string(kComponentsHint),
                           where, link});
        }
    }
    for (const auto& [key, rows] : failures) {
        // The AOT row says what happened; the FX rows are what had to be compiled again.
        const CacheRow* lead = rows.front();
        double fx = 0.0;
        for (const auto* r : rows) {
            if (r->cache == model::CacheKind::AotAutograd) {
                lead = r;
            } else {
                fx += r->costS;
            }
        }
        std::string text = "Cache load failure (" +
                           std::string(model::cacheKindName(lead->cache)) + "): " + lead->headline;
        if (rows.size() > 1) {
            text += " (" + std::to_string(rows.size()) + " lookups)";
        }
        out.push_back({Severity::Error, std::max(fx, lead->costS), text,
                       compileWhere(lead->rank, lead->compileId),
                       {Link::Kind::Lookup, lead->run, static_cast<int>(lead->lookup), lead->rank,
                        lead->compileId, {}, 0}});
    }
}

// Per run of several ranks, its first divergence (later ones counted); its cost the compile
// time of that run's frame holding the compile.
void addDivergence(const Diagnosis& d, std::vector<Finding>& out)
{
    std::map<int, std::vector<const Divergence*>> byRun;
    for (const auto& v : d.divergence) {
        byRun[v.run].push_back(&v);
    }
    for (const auto& [run, list] : byRun) {
        const Divergence& first = *list.front();
        std::string text = "Ranks diverge at " + first.compileId.toString() + ": " + first.what;
        std::string detail;
        for (const auto& [rank, what] : first.detail) {
            detail += (detail.empty() ? "" : "; ") + ("rank " + std::to_string(rank) + ": " + what);
        }
        if (!detail.empty()) {
            text += " (" + detail + ")";
        }
        if (list.size() > 1) {
            text += "; " + std::to_string(list.size() - 1) + " further difference(s)";
        }
        double cost = 0.0;
        for (const auto& f : d.frames) {
            if (f.run == run && std::find(f.compileIds.begin(), f.compileIds.end(),
                                          first.compileId) != f.compileIds.end()) {
                cost = std::max(cost, f.totalS);
            }
        }
        const int rank = first.detail.empty() ? -1 : first.detail.begin()->first;
        out.push_back({Severity::Error, cost, text, first.compileId.toString(),
                       {Link::Kind::Compile, run, -1, rank, first.compileId, {}, 0}});
    }
}

} // namespace

std::string costText(double s)
{
    char buf[32];
    std::snprintf(buf, sizeof(buf), s >= 10.0 ? "%.1f s" : "%.2f s", s);
    return buf;
}

std::string shortLocation(const std::string& file, int line)
{
    if (file.empty()) {
        return {};
    }
    const auto slash = file.rfind('/');
    std::string s = slash == std::string::npos ? file : file.substr(slash + 1);
    return line > 0 ? s + ":" + std::to_string(line) : s;
}

std::vector<Finding> makeFindings(const Diagnosis& d)
{
    std::vector<Finding> out;
    addFailures(d, out);
    addExportFailures(d, out);
    addRecompiles(d, out);
    addGraphBreaks(d, out);
    addCache(d, out);
    addKeyChanges(d, out);
    addDivergence(d, out);
    addFrames(d, out);
    std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
        if (a.costS != b.costS) {
            return a.costS > b.costS;
        }
        return a.severity < b.severity;
    });
    return out;
}

} // namespace fxs::diagnose
