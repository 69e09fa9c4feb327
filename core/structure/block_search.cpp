// findBlockRuns (repeated_blocks.h): periodic runs of node signatures in graph order.
#include "core/structure/repeated_blocks.h"
#include "core/structure/structural_hash.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <unordered_map>

namespace fxs::structure {
namespace {

using graph::NodeId;
using graph::OpKind;

struct Candidate {
    std::size_t start = 0;  // index into the sequence
    std::size_t period = 0;
    std::size_t length = 0; // periodic positions: [start, start + length)
    std::size_t covered() const { return period == 0 ? 0 : length / period * period; }
};

// Block lengths worth trying: the distances between consecutive occurrences of equal tokens,
// most frequent first (a token that occurs once per block repeats at the block length).
std::vector<std::size_t> candidatePeriods(const std::vector<std::uint64_t>& tokens,
                                          std::size_t minNodes)
{
    std::unordered_map<std::uint64_t, std::size_t> last;
    std::map<std::size_t, std::size_t> histogram;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const auto [it, fresh] = last.emplace(tokens[i], i);
        if (!fresh) {
            if (i - it->second >= minNodes) {
                ++histogram[i - it->second];
            }
            it->second = i;
        }
    }
    std::vector<std::pair<std::size_t, std::size_t>> byCount(histogram.begin(), histogram.end());
    std::stable_sort(byCount.begin(), byCount.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    std::vector<std::size_t> out;
    for (std::size_t k = 0; k < byCount.size() && k < 16; ++k) {
        out.push_back(byCount[k].first);
    }
    return out;
}

// The longest stretch of free positions where tokens[i] == tokens[i + period].
Candidate longestRun(const std::vector<std::uint64_t>& tokens, const std::vector<char>& used,
                     std::size_t period)
{
    Candidate best;
    best.period = period;
    std::size_t runStart = 0;
    std::size_t run = 0;
    for (std::size_t i = 0; i + period < tokens.size(); ++i) {
        const bool match = used[i] == 0 && used[i + period] == 0 && tokens[i] == tokens[i + period];
        if (!match) {
            run = 0;
            continue;
        }
        if (run++ == 0) {
            runStart = i;
        }
        if (run + period > best.length) {
            best.start = runStart;
            best.length = run + period;
        }
    }
    return best;
}

// The offset of the first cut (0..slack) that the fewest values cross, where slack is how far
// the run reaches past its whole periods: only those phases keep every period a block. A value
// crosses a cut between it and its last user; one that lives a period or longer crosses every
// cut alike and is not counted. Values, not edges: a residual stream read three times by the
// next layer is one value passed on, which a cut through the middle of a layer never beats.
std::size_t bestPhase(const graph::Graph& g, const std::vector<NodeId>& seq,
                      const std::vector<std::size_t>& indexOf, const Candidate& c)
{
    std::vector<long> diff(c.period + 1, 0);
    const std::size_t end = c.start + c.length;
    for (std::size_t u = c.start; u < end; ++u) {
        std::size_t last = u;
        for (NodeId user : g.node(seq[u]).users) {
            const std::size_t v = indexOf[user];
            if (v != SIZE_MAX && v < end) {
                last = std::max(last, v);
            }
        }
        if (last == u || last - u >= c.period) {
            continue; // dies inside its node, or crosses every cut alike
        }
        // Cuts at positions u+1 .. last, phases (pos - start) mod period.
        const std::size_t from = (u + 1 - c.start) % c.period;
        const std::size_t to = (last - c.start) % c.period;
        if (from <= to) {
            ++diff[from];
            --diff[to + 1];
        } else {
            ++diff[from];
            --diff[c.period];
            ++diff[0];
            --diff[to + 1];
        }
    }
    const std::size_t slack = c.length % c.period;
    std::size_t phase = 0;
    long best = LONG_MAX;
    long running = 0;
    for (std::size_t p = 0; p <= slack; ++p) {
        running += diff[p];
        if (running < best) {
            best = running;
            phase = p;
        }
    }
    return phase;
}

// Inputs used only inside one block join it — when every block of the run has such an input
// in the same place (the same argument of the node at the same position in the block): a
// block's weights join their layer, the graph input that only the first block reads does not.
// The output node does not count as a use: a forward graph returns the norm weights it saves
// for the backward, and they are still their layer's.
void addPlaceholders(const graph::Graph& g, std::vector<std::vector<NodeId>>& blocks)
{
    std::vector<std::size_t> blockOf(g.size(), SIZE_MAX);
    std::vector<std::size_t> positionOf(g.size(), 0);
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        for (std::size_t i = 0; i < blocks[b].size(); ++i) {
            blockOf[blocks[b][i]] = b;
            positionOf[blocks[b][i]] = i;
        }
    }
    // Per block: (position of its first user, index among that user's inputs) → placeholder.
    std::vector<std::map<std::pair<std::size_t, std::size_t>, NodeId>> joins(blocks.size());
    std::vector<NodeId> users;
    for (NodeId ph : g.placeholders()) {
        users.clear();
        for (NodeId u : g.node(ph).users) {
            if (g.node(u).op != OpKind::Output) {
                users.push_back(u);
            }
        }
        if (users.empty()) {
            continue;
        }
        const std::size_t b = blockOf[users.front()];
        if (b == SIZE_MAX || !std::all_of(users.begin(), users.end(),
                                          [&](NodeId u) { return blockOf[u] == b; })) {
            continue;
        }
        const auto& inputs = g.node(users.front()).inputs;
        const auto slot = static_cast<std::size_t>(
            std::find(inputs.begin(), inputs.end(), ph) - inputs.begin());
        joins[b].emplace(std::make_pair(positionOf[users.front()], slot), ph);
    }
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        for (const auto& [place, ph] : joins[b]) {
            const bool everywhere = std::all_of(joins.begin(), joins.end(), [&](const auto& j) {
                return j.count(place) > 0;
            });
            if (everywhere) {
                blocks[b].push_back(ph);
            }
        }
        std::sort(blocks[b].begin(), blocks[b].end());
    }
}

// Splits blocks into runs of consecutive blocks with equal structural hashes.
void splitByHash(const graph::Graph& g, std::span<const std::uint64_t> signatures,
                 std::vector<std::vector<NodeId>> blocks, std::size_t minInstances,
                 std::vector<BlockRun>& out)
{
    std::vector<std::uint64_t> hashes;
    for (const auto& b : blocks) {
        hashes.push_back(structuralHash(g, b, signatures));
    }
    for (std::size_t i = 0; i < blocks.size();) {
        std::size_t j = i + 1;
        while (j < blocks.size() && hashes[j] == hashes[i]) {
            ++j;
        }
        if (j - i >= minInstances) {
            BlockRun run;
            run.blocks.assign(std::make_move_iterator(blocks.begin() + static_cast<long>(i)),
                              std::make_move_iterator(blocks.begin() + static_cast<long>(j)));
            addPlaceholders(g, run.blocks);
            out.push_back(std::move(run));
        }
        i = j;
    }
}

} // namespace

std::vector<BlockRun> findBlockRuns(const graph::Graph& g, std::span<const std::uint64_t> signatures,
                                    std::size_t minNodes, std::size_t minInstances,
                                    const CancelToken& cancel)
{
    std::vector<NodeId> seq;
    std::vector<std::size_t> indexOf(g.size(), SIZE_MAX);
    std::vector<std::uint64_t> tokens;
    for (const auto& n : g.nodes()) {
        if (n.op != OpKind::Placeholder && n.op != OpKind::Output) {
            indexOf[n.id] = seq.size();
            seq.push_back(n.id);
            tokens.push_back(signatures.size() == g.size() ? signatures[n.id] : nodeSignature(g, n.id));
        }
    }
    minNodes = std::max<std::size_t>(minNodes, 1);
    minInstances = std::max<std::size_t>(minInstances, 2);
    std::vector<char> used(seq.size(), 0);
    std::vector<BlockRun> out;
    for (int round = 0; round < 8 && !cancel.isCancelled(); ++round) {
        Candidate best;
        for (std::size_t p : candidatePeriods(tokens, minNodes)) {
            const Candidate c = longestRun(tokens, used, p);
            if (c.length / p >= minInstances &&
                (c.covered() > best.covered() || (c.covered() == best.covered() && p < best.period))) {
                best = c;
            }
        }
        if (best.period == 0) {
            break;
        }
        const std::size_t phase = bestPhase(g, seq, indexOf, best);
        std::vector<std::vector<NodeId>> blocks;
        for (std::size_t s = best.start + phase; s + best.period <= best.start + best.length;
             s += best.period) {
            blocks.emplace_back(seq.begin() + static_cast<long>(s),
                                seq.begin() + static_cast<long>(s + best.period));
        }
        for (std::size_t i = best.start; i < best.start + best.length; ++i) {
            used[i] = 1;
        }
        if (blocks.size() >= minInstances) {
            splitByHash(g, signatures, std::move(blocks), minInstances, out);
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const BlockRun& a, const BlockRun& b) {
        return a.blocks.front().front() < b.blocks.front().front();
    });
    return out;
}

} // namespace fxs::structure
