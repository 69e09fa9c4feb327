#include "core/structure/source_scope.h"

namespace fxs::structure {
namespace {

using graph::NodeId;
using graph::SourceLoc;

bool sameFunction(const SourceLoc& a, const SourceLoc& b)
{
    return a.known() && b.known() && a.file == b.file && a.function == b.function;
}

// +1 when consecutive statements of one function mostly rise in line (a forward graph), -1
// when they mostly fall (a backward graph replays the forward's statements in reverse).
int lineDirection(const graph::Graph& g, std::span<const NodeId> nodes)
{
    long rising = 0;
    long falling = 0;
    for (std::size_t k = 1; k < nodes.size(); ++k) {
        const SourceLoc& a = g.node(nodes[k - 1]).source;
        const SourceLoc& b = g.node(nodes[k]).source;
        if (sameFunction(a, b)) {
            rising += b.line > a.line ? 1 : 0;
            falling += b.line < a.line ? 1 : 0;
        }
    }
    return falling > rising ? -1 : 1;
}

} // namespace

std::string sourceScopeLabel(const SourceLoc& source)
{
    const auto slash = source.file.find_last_of("/\\");
    const std::string file = slash == std::string::npos ? source.file : source.file.substr(slash + 1);
    return source.function + " · " + file + ":" + std::to_string(source.line);
}

std::string commonSourceLabel(const graph::Graph& g, std::span<const NodeId> nodes)
{
    const SourceLoc* first = nullptr;
    for (NodeId id : nodes) {
        const SourceLoc& s = g.node(id).source;
        if (!s.known()) {
            continue;
        }
        if (first == nullptr) {
            first = &s;
        } else if (!sameFunction(*first, s)) {
            return {};
        }
    }
    return first == nullptr ? std::string() : sourceScopeLabel(*first);
}

std::string sourceSpanLabel(const graph::Graph& g, std::span<const NodeId> nodes)
{
    std::string common = commonSourceLabel(g, nodes);
    if (!common.empty()) {
        return common;
    }
    const SourceLoc* first = nullptr;
    const SourceLoc* last = nullptr;
    for (NodeId id : nodes) {
        const SourceLoc& s = g.node(id).source;
        if (s.known()) {
            first = first == nullptr ? &s : first;
            last = &s;
        }
    }
    return first == nullptr ? std::string()
                            : sourceScopeLabel(*first) + " … " + sourceScopeLabel(*last);
}

std::vector<std::pair<std::size_t, std::size_t>> sourceCalls(const graph::Graph& g,
                                                            std::span<const NodeId> nodes)
{
    const int direction = lineDirection(g, nodes);
    std::vector<std::pair<std::size_t, std::size_t>> calls;
    std::size_t begin = 0;
    auto close = [&](std::size_t end) {
        if (end - begin >= 2 && g.node(nodes[begin]).source.known()) {
            calls.emplace_back(begin, end);
        }
        begin = end;
    };
    for (std::size_t k = 1; k < nodes.size(); ++k) {
        const SourceLoc& a = g.node(nodes[k - 1]).source;
        const SourceLoc& b = g.node(nodes[k]).source;
        const int step = (b.line - a.line) * direction;
        if (nodes[k] != nodes[k - 1] + 1 || !sameFunction(a, b) || step < 0 ||
            step > kMaxLineStep) {
            close(k);
        }
    }
    close(nodes.size());
    return calls;
}

} // namespace fxs::structure
