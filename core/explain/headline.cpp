#include "core/explain/headline.h"

#include "core/explain/value_summary.h"
#include "core/keydiff/headline.h"
#include "core/util/strings.h"

#include <cmath>
#include <cstdio>

namespace fxs::explain {
namespace {

using keydiff::CountStyle;
using keydiff::Outcome;
using model::CacheLookup;
using model::CacheState;

constexpr std::size_t kHeadlineValueChars = 60;

std::string keyPrefix(const CacheLookup& l)
{
    if (!l.key || l.key->empty()) {
        return "(no key)";
    }
    return l.key->size() > 10 ? l.key->substr(0, 10) + "\u2026" : *l.key;
}

std::optional<std::int64_t> savedNs(const CacheLookup& l)
{
    if (l.timeSavedNs) {
        return l.timeSavedNs;
    }
    if (l.timeSavedMs) {
        return static_cast<std::int64_t>(std::llround(*l.timeSavedMs * 1e6));
    }
    return std::nullopt;
}

std::string environmentHint(std::string_view family)
{
    if (family == "torch_version") {
        return "a different PyTorch build";
    }
    if (family == "system_info") {
        return "a different GPU, driver or Triton";
    }
    if (family == "cache_key_tag") {
        return "a different cache key tag";
    }
    return "the environment changed";
}

// "inductor_config[max_fusion_size] changed 64 → 32", "example_inputs[0] shape [...] → [...]".
std::string changePhrase(const ComponentChange& c, const GraphDiff* graphDiff)
{
    switch (c.change) {
    case ChangeKind::OnlyA: return c.component + " removed (was " + oneLine(c.a, 40) + ")";
    case ChangeKind::OnlyB: return c.component + " added (= " + oneLine(c.b, 40) + ")";
    case ChangeKind::Changed: break;
    }
    if (c.family == "gm") {
        // Few nodes: name them (what the user would look for in both graphs); else count.
        if (const std::string changes = graphDiff ? graphDiff->changeText() : std::string();
            !changes.empty()) {
            return "gm changed: " + oneLine(changes, 3 * kHeadlineValueChars);
        }
        return graphDiff ? "gm (graph code) changed: " + graphDiff->summary()
                         : std::string("gm (graph code) changed");
    }
    // TensorMetadata and same-text changes have a field-wise summary; use it.
    if (startsWith(c.a, "TensorMetadata(") || c.a == c.b) {
        return c.component + " " + oneLine(c.summary, 2 * kHeadlineValueChars);
    }
    return c.component + " changed " + oneLine(c.a, kHeadlineValueChars) + std::string(kChangeArrow) +
           oneLine(c.b, kHeadlineValueChars);
}

Headline miss(Verdict v, std::string_view detail)
{
    return {v, keydiff::headline(Outcome::Miss, detail)};
}

Headline missHeadline(const HeadlineInput& in)
{
    const CacheLookup& l = *in.lookup;
    const CacheLookup* p = in.partner;
    if (l.detailedStatus == "guard_miss") {
        return miss(Verdict::GuardMiss,
                    l.guardExpression.empty()
                        ? std::string("the key was found but its guards failed")
                        : "the key was found but a guard failed: " + oneLine(l.guardExpression));
    }
    if (!p) {
        return miss(Verdict::NoPartner, in.withinRun ? std::string("first lookup of this graph")
                                                     : "no counterpart in " + in.partnerLabel +
                                                           " to compare with");
    }
    if (p->state == CacheState::Bypass || p->state == CacheState::Disabled) {
        const std::string how = p->state == CacheState::Bypass ? "bypassed" : "disabled";
        std::string text = in.partnerLabel + " " + how + " the cache";
        if (!p->bypassReason.empty()) {
            text += " (" + oneLine(p->bypassReason, 80) + ")";
        }
        return miss(Verdict::PartnerUncached, text + ", so nothing was stored");
    }
    if (l.key && p->key && *l.key == *p->key) {
        return miss(Verdict::EntryAbsent,
                    "same key as " + in.partnerLabel + " (" +
                        std::string(model::cacheStateName(p->state)) +
                        "), no component changed: the entry was absent (a different or cleared "
                        "cache directory, or it was never written)");
    }
    if (l.components.empty()) {
        return miss(Verdict::NoComponents, "no key components were logged; nothing to compare");
    }
    if (!in.diff || in.diff->empty()) {
        return miss(Verdict::KeyDiffers, "the key differs from " + in.partnerLabel +
                                             "'s but every logged component is equal");
    }
    const bool environment = in.diff->onlyEnvironment();
    const std::string detail = keydiff::changeDetail(
        *in.diff,
        [&](const ComponentChange& first) {
            const std::string phrase = changePhrase(first, in.graphDiff);
            return environment ? phrase + " \u2014 " + environmentHint(first.family) : phrase;
        },
        CountStyle::OfTotal);
    return miss(environment ? Verdict::EnvironmentChanged : Verdict::ComponentsChanged, detail);
}

} // namespace

std::string_view verdictName(Verdict v)
{
    switch (v) {
    case Verdict::Hit: return "hit";
    case Verdict::Bypass: return "bypass";
    case Verdict::Disabled: return "disabled";
    case Verdict::GuardMiss: return "guard_miss";
    case Verdict::ComponentsChanged: return "components_changed";
    case Verdict::EnvironmentChanged: return "environment_changed";
    case Verdict::EntryAbsent: return "entry_absent";
    case Verdict::PartnerUncached: return "partner_uncached";
    case Verdict::KeyDiffers: return "key_differs";
    case Verdict::NoComponents: return "no_components";
    case Verdict::NoPartner: return "no_partner";
    }
    return "?";
}

std::string formatDurationNs(std::int64_t ns)
{
    const double ms = static_cast<double>(ns) / 1e6;
    char buf[32];
    if (ms >= 10000.0) {
        std::snprintf(buf, sizeof(buf), "%.1f s", ms / 1000.0);
    } else if (ms >= 10.0) {
        std::snprintf(buf, sizeof(buf), "%.0f ms", ms);
    } else {
        std::snprintf(buf, sizeof(buf), "%.1f ms", ms);
    }
    return buf;
}

std::string oneLine(std::string_view text, std::size_t maxChars)
{
    std::string out;
    bool space = false;
    for (char c : trim(text)) {
        if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
            space = true;
            continue;
        }
        if (space) {
            out += ' ';
            space = false;
        }
        out += c;
    }
    if (out.size() > maxChars) {
        std::size_t cut = maxChars;
        // Do not cut a UTF-8 sequence in two.
        while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xc0) == 0x80) {
            --cut;
        }
        out.resize(cut);
        out += "\u2026";
    }
    return out;
}

Headline makeHeadline(const HeadlineInput& in)
{
    const CacheLookup& l = *in.lookup;
    switch (l.state) {
    case CacheState::Hit: {
        std::string text = keydiff::headline(Outcome::Hit, keyPrefix(l));
        if (const auto ns = savedNs(l)) {
            text += " (saved " + formatDurationNs(*ns) + ")";
        }
        if (in.withinRun && in.partner && in.matchKind == MatchKind::SameKey &&
            in.partner->state == CacheState::Miss) {
            text += ", the entry stored by the miss of " + in.partnerLabel;
        }
        return {Verdict::Hit, text};
    }
    case CacheState::Bypass: {
        std::string reason = l.bypassReason.empty() ? std::string("no reason logged")
                                                    : oneLine(l.bypassReason, 240);
        if (!l.bypassExceptionType.empty() && l.bypassReason.empty()) {
            reason += " (" + l.bypassExceptionType + ")";
        }
        return {Verdict::Bypass, keydiff::headline(Outcome::Bypass, reason)};
    }
    case CacheState::Disabled: {
        std::string text = keydiff::headline(Outcome::Disabled,
                                             "the " + std::string(model::cacheKindName(l.cache)) +
                                                 " cache is turned off");
        if (!l.bypassReason.empty()) {
            text += " (" + oneLine(l.bypassReason, 80) + ")";
        }
        return {Verdict::Disabled, text};
    }
    case CacheState::Miss: break;
    }
    Headline h = missHeadline(in);
    if (in.recompile && h.verdict == Verdict::ComponentsChanged && in.diff) {
        // The recompile reason says what changed; the component list follows from it.
        const std::size_t total = in.diff->common + in.diff->changes.size();
        h.text = keydiff::headline(Outcome::Miss, "recompile (" + in.recompile->summary() +
                                                      "); " +
                                                      std::to_string(in.diff->changes.size()) +
                                                      " of " + std::to_string(total) +
                                                      " key components changed");
    } else if (in.recompile) {
        const std::string kMiss = keydiff::headline(Outcome::Miss, "");
        const std::string_view rest = startsWith(h.text, kMiss)
                                          ? std::string_view(h.text).substr(kMiss.size())
                                          : std::string_view(h.text);
        h.text = keydiff::headline(Outcome::Miss, "recompile (" + in.recompile->summary() +
                                                      "); " + std::string(rest));
    }
    return h;
}

} // namespace fxs::explain
