#include "core/model/cache_lookup.h"
#include "core/model/compile_id.h"
#include "core/model/run.h"
#include "core/util/strings.h"

#include <algorithm>

namespace fxs::model {

namespace {
constexpr std::string_view kAfterReset = " after reset ";
}

std::string CompileId::toString() const
{
    if (!valid()) {
        return {};
    }
    std::string s;
    if (compiledAutogradId) {
        s += "!" + std::to_string(*compiledAutogradId) + "/";
    }
    s += std::to_string(frameId) + "/" + std::to_string(frameCompileId);
    if (attempt > 0) {
        s += "_" + std::to_string(attempt);
    }
    if (session > 0) {
        s += std::string(kAfterReset) + std::to_string(session);
    }
    return s;
}

std::optional<CompileId> CompileId::parse(std::string_view text)
{
    CompileId id;
    if (const auto reset = text.find(kAfterReset); reset != std::string_view::npos) {
        const auto session = parseInt(text.substr(reset + kAfterReset.size()));
        if (!session || *session < 0) {
            return std::nullopt;
        }
        id.session = static_cast<int>(*session);
        text = text.substr(0, reset);
    }
    if (startsWith(text, "!")) {
        const auto slash = text.find('/');
        const auto ca = parseInt(text.substr(1, slash - 1));
        if (slash == std::string_view::npos || !ca) {
            return std::nullopt;
        }
        id.compiledAutogradId = static_cast<int>(*ca);
        text.remove_prefix(slash + 1);
    }
    const auto slash = text.find('/');
    if (slash == std::string_view::npos) {
        return std::nullopt;
    }
    auto rest = text.substr(slash + 1);
    const auto underscore = rest.find('_');
    const auto frame = parseInt(text.substr(0, slash));
    const auto compile = parseInt(rest.substr(0, underscore));
    if (!frame || !compile) {
        return std::nullopt;
    }
    id.frameId = static_cast<int>(*frame);
    id.frameCompileId = static_cast<int>(*compile);
    if (underscore != std::string_view::npos) {
        const auto attempt = parseInt(rest.substr(underscore + 1));
        if (!attempt) {
            return std::nullopt;
        }
        id.attempt = static_cast<int>(*attempt);
    }
    return id;
}

std::string_view cacheKindName(CacheKind k)
{
    return k == CacheKind::FxGraph ? "fx_graph" : "aotautograd";
}

std::string_view cacheStateName(CacheState s)
{
    switch (s) {
    case CacheState::Hit: return "hit";
    case CacheState::Miss: return "miss";
    case CacheState::Bypass: return "bypass";
    case CacheState::Disabled: return "disabled";
    }
    return "?";
}

const KeyComponent* CacheLookup::component(std::string_view name) const
{
    for (const auto& c : components) {
        if (c.name == name) {
            return &c;
        }
    }
    return nullptr;
}

std::string PayloadRef::text() const
{
    if (empty() || offset > buffer->size()) {
        return {};
    }
    const std::string_view raw = std::string_view(*buffer).substr(offset, length);
    if (!tabIndented) {
        return std::string(raw);
    }
    std::string out;
    out.reserve(raw.size());
    std::size_t pos = 0;
    bool first = true;
    while (pos <= raw.size()) {
        const std::size_t nl = std::min(raw.find('\n', pos), raw.size());
        std::string_view line = raw.substr(pos, nl - pos);
        pos = nl + 1;
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1); // a "\r\n" log
        }
        if (line.empty()) {
            continue; // an untabbed blank line the reader dropped from the payload
        }
        if (line[0] == '\t') {
            line.remove_prefix(1);
        }
        out.append(first ? "" : "\n").append(line);
        first = false;
    }
    return out;
}

const DeferredGraph::Parsed& DeferredGraph::get() const
{
    std::call_once(m_once, [this] {
        m_parsed = m_parse();
        m_done.store(true, std::memory_order_release);
    });
    return m_parsed;
}

const DeferredGraph::Parsed* DeferredGraph::ifParsed() const
{
    return m_done.load(std::memory_order_acquire) ? &m_parsed : nullptr;
}

graph::GraphPtr GraphArtifact::parsedGraph() const
{
    if (graph || !deferred) {
        return graph;
    }
    const auto* parsed = deferred->ifParsed();
    return parsed != nullptr ? parsed->graph : nullptr;
}

std::vector<CompileId> Run::compileIds() const
{
    std::vector<CompileId> ids;
    auto note = [&](const CompileId& id) {
        if (id.valid() && std::find(ids.begin(), ids.end(), id) == ids.end()) {
            ids.push_back(id);
        }
    };
    for (const auto& g : graphs) {
        note(g.compileId);
    }
    for (const auto& l : lookups) {
        note(l.compileId);
    }
    for (const auto& t : texts) {
        note(t.compileId);
    }
    return ids;
}

} // namespace fxs::model
