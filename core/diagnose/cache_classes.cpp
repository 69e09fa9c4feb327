#include "core/diagnose/cache_classes.h"

#include "core/diagnose/graph_names.h"
#include "core/explain/headline.h"

#include <map>
#include <memory>
#include <set>
#include <string_view>
#include <unordered_map>

namespace fxs::diagnose {

const char* const kComponentsHint =
    "this PyTorch computes the key's components only when its cache modules log at DEBUG "
    "level; run again with TORCH_LOGS=\"+torch._inductor.codecache,"
    "+torch._functorch._aot_autograd.autograd_cache\" to have them logged";

namespace {

using model::CacheKind;
using model::CacheLookup;
using model::CacheState;

constexpr const char* kStderrNote =
    "PyTorch reports a failed load only on stderr (\"fx graph cache unable to load compiled "
    "graph\"), never in TORCH_TRACE";

std::string shortKey(const std::optional<std::string>& key)
{
    if (!key || key->empty()) {
        return "(no key)";
    }
    return key->size() > 10 ? key->substr(0, 10) + "\u2026" : *key;
}

// The key components besides gm whose digest differs between two lookups (or that only one
// has): "example_inputs[0], inductor_config[max_fusion_size]" (at most 3 named), "" when none.
std::string otherChanges(const CacheLookup& a, const CacheLookup& b)
{
    std::map<std::string_view, std::string_view> digests;
    for (const auto& c : b.components) {
        digests.emplace(c.name, c.digest);
    }
    std::vector<std::string_view> changed;
    for (const auto& c : a.components) {
        const auto it = digests.find(c.name);
        if (c.name != "gm" && (it == digests.end() || it->second != c.digest)) {
            changed.push_back(c.name);
        }
        if (it != digests.end()) {
            digests.erase(it);
        }
    }
    for (const auto& [name, digest] : digests) {
        if (name != "gm") {
            changed.push_back(name);
        }
    }
    std::string out;
    for (std::size_t i = 0; i < changed.size() && i < 3; ++i) {
        out += (i ? ", " : "") + std::string(changed[i]);
    }
    if (changed.size() > 3) {
        out += " and " + std::to_string(changed.size() - 3) + " more";
    }
    return out;
}

CacheClass baseClass(const CacheLookup& l)
{
    switch (l.state) {
    case CacheState::Hit: return CacheClass::Hit;
    case CacheState::Bypass: return CacheClass::Bypass;
    case CacheState::Disabled: return CacheClass::Disabled;
    case CacheState::Miss: break;
    }
    return l.detailedStatus == "guard_miss" ? CacheClass::GuardMiss : CacheClass::ColdMiss;
}

bool isFullMiss(const CacheLookup& l)
{
    return l.state == CacheState::Miss && l.detailedStatus != "guard_miss";
}

double costOf(const CacheLookup& l, const CompileTimes& times)
{
    if (l.state == CacheState::Hit) {
        if (l.timeSavedNs) {
            return static_cast<double>(*l.timeSavedNs) / 1e9;
        }
        return l.timeSavedMs ? *l.timeSavedMs / 1e3 : 0.0;
    }
    if (l.timeTakenNs) {
        return static_cast<double>(*l.timeTakenNs) / 1e9;
    }
    if (l.cache == CacheKind::AotAutograd && l.state != CacheState::Disabled) {
        // AOT lookups log no time: a miss costs the backend compile that followed.
        const auto it = times.find({l.rank, l.compileId.withoutAttempt()});
        if (it != times.end()) {
            const auto& p = it->second.phases;
            return p.aotS + p.inductorS + p.cacheS;
        }
    }
    return 0.0;
}

using CompileKey = std::tuple<int, model::CompileId>;

class Classifier {
public:
    Classifier(const std::vector<const model::Run*>& runs,
               const std::vector<explain::Explanation>& explanations,
               const std::vector<CompileTimes>& times)
        : m_runs(runs), m_explanations(explanations), m_times(times)
    {
    }

    std::vector<CacheRow> run()
    {
        for (std::size_t r = 0; r < m_runs.size(); ++r) {
            classifyRun(static_cast<int>(r));
        }
        markSameGraphs();
        return std::move(m_rows);
    }

private:
    void classifyRun(int r)
    {
        const model::Run& run = *m_runs[static_cast<std::size_t>(r)];
        const auto& ex = m_explanations[static_cast<std::size_t>(r)];
        const std::size_t first = m_rows.size();
        std::map<CompileKey, std::vector<std::size_t>> byCompile; // row indices
        for (std::size_t i = 0; i < run.lookups.size(); ++i) {
            const CacheLookup& l = run.lookups[i];
            CacheRow row;
            row.run = r;
            row.rank = l.rank;
            row.compileId = l.compileId;
            row.cache = l.cache;
            row.cls = baseClass(l);
            row.key = l.key;
            row.lookup = i;
            row.costS = costOf(l, m_times[static_cast<std::size_t>(r)]);
            row.headline = i < ex.lookups.size() ? ex.lookups[i].headline : std::string();
            if (i < ex.lookups.size() && !ex.within && r > 0) {
                noteCause(ex.lookups[i], r - 1, row);
            }
            noteMissingComponents(l, row);
            byCompile[{l.rank, l.compileId.withoutAttempt()}].push_back(m_rows.size());
            m_rows.push_back(std::move(row));
        }
        for (const auto& [key, rows] : byCompile) {
            aotEntryUnloadable(run, rows);
            aotEntryMissingBesideFxHits(run, ex, rows);
        }
        storedEarlier(run, first);
        for (std::size_t k = first; k < m_rows.size(); ++k) {
            const CacheLookup& l = run.lookups[m_rows[k].lookup];
            if (l.state == CacheState::Hit || l.state == CacheState::Miss) {
                if (l.key) {
                    m_stored.emplace(std::make_pair(l.cache, *l.key), r); // the first run wins
                }
            }
        }
    }

    // A miss whose key components changed since the run before: what changed first.
    static void noteCause(const explain::LookupExplanation& e, int earlierRun, CacheRow& row)
    {
        if (row.cls != CacheClass::ColdMiss || e.diff.empty() ||
            (e.verdict != explain::Verdict::ComponentsChanged &&
             e.verdict != explain::Verdict::EnvironmentChanged)) {
            return;
        }
        const auto& first = e.diff.changes.front();
        row.changedSinceRun = earlierRun;
        row.cause = first.component + (first.summary.empty() ? "" : " " + first.summary);
        if (e.diff.changes.size() > 1) {
            row.cause += " (+" + std::to_string(e.diff.changes.size() - 1) + " more)";
        }
    }

    void noteMissingComponents(const CacheLookup& l, CacheRow& row)
    {
        if (l.origin != "artifact" || !l.key || !l.components.empty() ||
            (l.state != CacheState::Hit && l.state != CacheState::Miss)) {
            return;
        }
        row.componentsMissing = true;
        if (l.state == CacheState::Miss) {
            row.headline = "miss: key " + shortKey(l.key) +
                           " was logged without its components, so what changed cannot be "
                           "told: " + kComponentsHint;
        }
    }

    // An AOT entry that was read (detailed status "hit") but missed: an FX graph it refers to
    // could not be loaded. The FX misses of the compile are load failures too.
    void aotEntryUnloadable(const model::Run& run, const std::vector<std::size_t>& rows)
    {
        std::optional<std::size_t> aotRow;
        for (std::size_t k : rows) {
            const CacheLookup& l = run.lookups[m_rows[k].lookup];
            if (l.cache == CacheKind::AotAutograd && l.state == CacheState::Miss &&
                l.detailedStatus == "hit") {
                aotRow = k;
            }
        }
        if (!aotRow) {
            return;
        }
        CacheRow& a = m_rows[*aotRow];
        std::string failedFx;
        for (std::size_t k : rows) {
            CacheRow& row = m_rows[k];
            const CacheLookup& l = run.lookups[row.lookup];
            if (l.cache == CacheKind::FxGraph && isFullMiss(l)) {
                if (failedFx.empty() && row.lookup < a.lookup) {
                    failedFx = shortKey(l.key);
                }
                row.cls = CacheClass::LoadFailure;
                row.headline = "load failure: FX graph " + shortKey(l.key) +
                               " was cached (the AOTAutograd entry " + shortKey(a.key) +
                               " of this compile refers to it) but could not be loaded "
                               "(unreadable, deleted or evicted); PyTorch compiled it again";
            }
        }
        a.cls = CacheClass::LoadFailure;
        a.headline = "load failure: the AOTAutograd entry " + shortKey(a.key) +
                     " was found, but an FX graph it needs" +
                     (failedFx.empty() ? std::string() : " (" + failedFx + ")") +
                     " could not be loaded, so PyTorch compiled again; " + kStderrNote;
    }

    // An AOT full miss whose FX graphs all hit: they were cached by a compile that also
    // wrote the AOT entry, so the entry was there and could not be read (or was deleted) —
    // unless an earlier lookup shows that the AOT key itself changed.
    void aotEntryMissingBesideFxHits(const model::Run& run, const explain::Explanation& ex,
                                     const std::vector<std::size_t>& rows)
    {
        CacheRow* aot = nullptr;
        std::size_t fxHits = 0;
        for (std::size_t k : rows) {
            const CacheLookup& l = run.lookups[m_rows[k].lookup];
            if (l.cache == CacheKind::AotAutograd && isFullMiss(l) && l.detailedStatus != "hit") {
                aot = &m_rows[k];
            } else if (l.cache == CacheKind::FxGraph) {
                if (l.state != CacheState::Hit) {
                    return;
                }
                ++fxHits;
            }
        }
        if (!aot || fxHits == 0 || aot->cls != CacheClass::ColdMiss) {
            return;
        }
        if (aot->lookup < ex.lookups.size()) {
            const auto v = ex.lookups[aot->lookup].verdict;
            if (v == explain::Verdict::ComponentsChanged ||
                v == explain::Verdict::EnvironmentChanged) {
                return; // the key changed: a genuine cold miss
            }
        }
        aot->cls = CacheClass::LoadFailure;
        aot->headline = "load failure: the AOTAutograd entry " + shortKey(aot->key) +
                        " was not loaded although the " + std::to_string(fxHits) +
                        " FX graph(s) it compiles to were cached (hits): the entry was "
                        "unreadable or deleted; " + kStderrNote;
    }

    // A full miss on a key an earlier run stored, in a run that hits keys of that run.
    void storedEarlier(const model::Run& run, std::size_t first)
    {
        std::set<int> sharedWith;
        for (std::size_t k = first; k < m_rows.size(); ++k) {
            const CacheLookup& l = run.lookups[m_rows[k].lookup];
            if (l.state == CacheState::Hit && l.key) {
                if (auto it = m_stored.find({l.cache, *l.key}); it != m_stored.end()) {
                    sharedWith.insert(it->second);
                }
            }
        }
        for (std::size_t k = first; k < m_rows.size(); ++k) {
            CacheRow& row = m_rows[k];
            const CacheLookup& l = run.lookups[row.lookup];
            if (row.cls != CacheClass::ColdMiss || !l.key || !isFullMiss(l)) {
                continue;
            }
            const auto it = m_stored.find({l.cache, *l.key});
            if (it == m_stored.end() || !sharedWith.count(it->second)) {
                continue;
            }
            row.cls = CacheClass::LoadFailure;
            row.headline = "load failure: run " + std::to_string(it->second) +
                           " stored this key and this run reads the same cache (it hits other "
                           "entries run " + std::to_string(it->second) +
                           " stored), but the entry was not loaded: unreadable or deleted; " +
                           kStderrNote;
        }
    }

    // Misses whose gm differs from another miss's only in node names: each miss is paired with
    // the earliest earlier miss of the same canonical code and another gm digest. A group keeps
    // its digests in order of first appearance with that first miss (64 ranks compiling one
    // graph make groups of thousands of misses with a single digest), and the code of each
    // distinct gm is canonicalised once.
    void markSameGraphs()
    {
        struct Group {
            std::vector<std::pair<std::string_view, std::size_t>> digests; // digest, first row
        };
        std::unordered_map<std::string, Group> byCanonical;
        std::unordered_map<std::string_view, std::shared_ptr<const CanonicalGraph>> byCode;
        std::map<std::pair<int, const CanonicalGraph*>, Group*> groupOf;
        std::vector<std::shared_ptr<const CanonicalGraph>> canon(m_rows.size());
        for (std::size_t k = 0; k < m_rows.size(); ++k) {
            const CacheRow& row = m_rows[k];
            const CacheLookup& l = m_runs[static_cast<std::size_t>(row.run)]->lookups[row.lookup];
            const auto* gm = l.component("gm");
            if (l.state != CacheState::Miss || !gm) {
                continue;
            }
            auto& known = byCode[gm->value];
            if (!known) {
                known = std::make_shared<const CanonicalGraph>(canonicalGraphCode(gm->value));
            }
            canon[k] = known;
            Group*& groupRef = groupOf[{int(l.cache), known.get()}];
            if (!groupRef) {
                groupRef = &byCanonical[std::to_string(int(l.cache)) + known->text];
            }
            Group& group = *groupRef;
            bool seen = false;
            bool paired = false;
            for (const auto& [digest, first] : group.digests) {
                if (digest == gm->digest) {
                    seen = true;
                } else if (!paired) {
                    sameUpToNames(k, first, *canon[k], *canon[first]);
                    paired = true;
                }
            }
            if (!seen) {
                group.digests.emplace_back(gm->digest, k);
            }
        }
    }

    void sameUpToNames(std::size_t k, std::size_t other, const CanonicalGraph& a,
                       const CanonicalGraph& b)
    {
        CacheRow& row = m_rows[k];
        const CacheRow& o = m_rows[other];
        row.sameGraphUpToNames = other;
        std::string where = o.compileId.valid() ? o.compileId.toString() : "an earlier lookup";
        if (o.run != row.run) {
            where = "run " + std::to_string(o.run) + " " + where;
        } else if (o.rank != row.rank) {
            where = "rank " + std::to_string(o.rank) + " " + where;
        }
        std::string text = "miss: the graph is identical to " + where + "'s up to node names";
        if (const auto rename = firstRename(b, a)) {
            text += " (" + rename->first + " \u2192 " + rename->second + ")";
        }
        const auto others = otherChanges(lookupOf(row), lookupOf(o));
        text += others.empty() ? ": only the names changed the key"
                               : "; the key also changed in " + others;
        if (row.cls == CacheClass::ColdMiss) {
            row.headline = text;
        }
    }

    const CacheLookup& lookupOf(const CacheRow& row) const
    {
        return m_runs[static_cast<std::size_t>(row.run)]->lookups[row.lookup];
    }

    const std::vector<const model::Run*>& m_runs;
    const std::vector<explain::Explanation>& m_explanations;
    const std::vector<CompileTimes>& m_times;
    std::vector<CacheRow> m_rows;
    std::map<std::pair<CacheKind, std::string>, int> m_stored; // key → run that stored it
};

} // namespace

std::vector<CacheRow> classifyLookups(const std::vector<const model::Run*>& runs,
                                      const std::vector<explain::Explanation>& explanations,
                                      const std::vector<CompileTimes>& times)
{
    return Classifier(runs, explanations, times).run();
}

} // namespace fxs::diagnose
