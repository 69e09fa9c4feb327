#include "core/diagnose/rank_divergence.h"

#include "core/explain/recompile_cause.h"
#include "core/graph/graph_printer.h"
#include "core/util/digest.h"
#include "core/util/strings.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>

namespace fxs::diagnose {

namespace {

using CompileMap = std::map<model::CompileId, RankCompile>;

std::string hexDigest(std::string_view text)
{
    char buf[17];
    std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(xxh3(text)));
    return buf;
}

bool isDigit(char c)
{
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// "f32[8, 16][16, 1]cuda:0", "i64[]", "Sym(s77)": a value annotation, not code.
bool looksLikeMeta(std::string_view s)
{
    std::size_t i = 0;
    while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i]))) {
        ++i;
    }
    while (i < s.size() && isDigit(s[i])) {
        ++i;
    }
    return i > 0 && i < s.size() && (s[i] == '[' || s[i] == '(');
}

std::string shapeText(const model::TensorRecord& t)
{
    std::string dtype = t.dtype;
    if (startsWith(dtype, "torch.")) {
        dtype.erase(0, 6);
    }
    return "[" + join(t.size, ", ") + "] " + dtype;
}

RankCompile& compileOf(std::map<int, CompileMap>& ranks, int rank, const model::CompileId& id)
{
    RankCompile& c = ranks[rank][id.withoutAttempt()];
    c.compileId = id.withoutAttempt();
    return c;
}

bool hasSeveralRanks(const model::Run& run)
{
    std::set<int> seen;
    const auto add = [&seen](int rank) { return seen.insert(rank).second && seen.size() > 1; };
    for (const auto& t : run.tensors) {
        if (t.origin.compileId.valid() && add(t.origin.rank)) {
            return true;
        }
    }
    for (const auto& g : run.graphs) {
        if (add(g.rank)) {
            return true;
        }
    }
    for (const auto& t : run.texts) {
        if (add(t.rank)) {
            return true;
        }
    }
    for (const auto& l : run.lookups) {
        if (add(l.rank)) {
            return true;
        }
    }
    return false;
}

void collect(const model::Run& run, std::map<int, CompileMap>& ranks)
{
    for (const auto& t : run.tensors) {
        if (t.origin.compileId.valid()) {
            compileOf(ranks, t.origin.rank, t.origin.compileId)
                .inputs.emplace_back(explain::readableSource(t.source), shapeText(t));
        }
    }
    for (const auto& g : run.graphs) {
        if (g.kind == "dynamo_output_graph" && g.compileId.valid()) {
            // Graphs read for diagnosis keep their code (not parsed at import); a graph parsed
            // at import (the app's runs) is printed back without its shape annotations.
            const std::string code = !g.code.empty() ? g.code.text()
                                     : g.graph       ? graph::printGraphCode(*g.graph, false)
                                                     : std::string();
            compileOf(ranks, g.rank, g.compileId).graphDigest =
                code.empty() ? std::string() : hexDigest(normalisedGraphCode(code));
        }
    }
    for (const auto& t : run.texts) {
        if (t.kind == "dynamo_cpp_guards_str" && t.compileId.valid()) {
            compileOf(ranks, t.rank, t.compileId).guardDigest = hexDigest(normalisedGuards(t.text));
        }
    }
    for (const auto& l : run.lookups) {
        if (!l.compileId.valid()) {
            continue;
        }
        std::string& s = compileOf(ranks, l.rank, l.compileId).cacheStates;
        s += (s.empty() ? "" : ", ") + std::string(model::cacheKindName(l.cache)) + " " +
             std::string(model::cacheStateName(l.state));
    }
}

// "x: [8, 16] float32; w: ..." restricted to the inputs whose text differs between ranks.
std::map<int, std::string> inputDetail(const std::map<int, const RankCompile*>& present)
{
    std::set<std::string> differing;
    std::map<std::string, std::set<std::string>> values;
    for (const auto& [rank, c] : present) {
        for (const auto& [name, text] : c->inputs) {
            values[name].insert(text);
        }
    }
    for (const auto& [name, texts] : values) {
        if (texts.size() > 1) {
            differing.insert(name);
        }
    }
    std::map<int, std::string> detail;
    for (const auto& [rank, c] : present) {
        std::string s;
        for (const auto& [name, text] : c->inputs) {
            if (differing.empty() || differing.count(name)) {
                s += (s.empty() ? "" : "; ") + name + ": " + text;
            }
        }
        detail[rank] = s;
    }
    return detail;
}

bool allEqual(const std::map<int, std::string>& m)
{
    return std::adjacent_find(m.begin(), m.end(), [](const auto& a, const auto& b) {
               return a.second != b.second;
           }) == m.end();
}

template <class F>
std::map<int, std::string> project(const std::map<int, const RankCompile*>& present, F&& f)
{
    std::map<int, std::string> out;
    for (const auto& [rank, c] : present) {
        out[rank] = f(*c);
    }
    return out;
}

void compareCompile(const model::CompileId& id, const std::map<int, CompileMap>& ranks,
                    std::vector<Divergence>& out)
{
    std::map<int, const RankCompile*> present;
    std::map<int, std::string> compiled;
    for (const auto& [rank, compiles] : ranks) {
        const auto it = compiles.find(id);
        compiled[rank] = it == compiles.end() ? "not compiled" : "compiled";
        if (it != compiles.end()) {
            present[rank] = &it->second;
        }
    }
    if (!allEqual(compiled)) {
        out.push_back({0, id, "compiled on some ranks only", compiled});
    }
    if (present.size() < 2) {
        return;
    }
    const auto inputs = project(present, [](const RankCompile& c) {
        std::string s;
        for (const auto& [n, t] : c.inputs) {
            s += n + ": " + t + "; ";
        }
        return s;
    });
    if (!allEqual(inputs)) {
        out.push_back({0, id, "input shapes differ", inputDetail(present)});
    }
    const auto graphs = project(present, [](const RankCompile& c) { return c.graphDigest; });
    if (!allEqual(graphs)) {
        out.push_back({0, id, "graph differs", project(present, [](const RankCompile& c) {
                           return "dynamo graph " + c.graphDigest.substr(0, 8);
                       })});
    }
    const auto guards = project(present, [](const RankCompile& c) { return c.guardDigest; });
    if (!allEqual(guards)) {
        out.push_back({0, id, "guards differ", project(present, [](const RankCompile& c) {
                           return "guards " + c.guardDigest.substr(0, 8);
                       })});
    }
    const auto cache = project(present, [](const RankCompile& c) { return c.cacheStates; });
    if (!allEqual(cache)) {
        out.push_back({0, id, "cache state differs", cache});
    }
}

// Shapes in guards are inputs, compared apart: their lists are dropped.
constexpr std::string_view kShapeLists[] = {"size=[", "stride=["};

// The token of a guard line at i that differs between processes or ranks, written to out in
// its normalised form; returns where it ends, or i when there is none (the byte is copied).
// Dispatches on the first byte: this runs over every byte of every rank's guards.
std::size_t normaliseGuardToken(std::string_view line, std::size_t i, std::string& out)
{
    const char c = line[i];
    if (c == '0' && line.substr(i, 2) == "0x") { // an address: differs per process
        i += 2;
        while (i < line.size() && std::isxdigit(static_cast<unsigned char>(line[i]))) {
            ++i;
        }
        out += '#';
        return i;
    }
    if (isDigit(c)) {
        // Object ids (6+ digits) differ per process; sizes are inputs, compared apart.
        std::size_t j = i;
        while (j < line.size() && isDigit(line[j])) {
            ++j;
        }
        if (j - i < 6) {
            return i;
        }
        out += '#';
        return j;
    }
    // Each rank's tensors live on its own GPU: "device=1" on rank 1 is rank 0's "device=0".
    if (c == 'd' && line.substr(i, 7) == "device=" && i + 7 < line.size() &&
        isDigit(line[i + 7])) {
        out += "device=#";
        i += 7;
        while (i < line.size() && isDigit(line[i])) {
            ++i;
        }
        return i;
    }
    if (c == 's') {
        for (const std::string_view list : kShapeLists) {
            if (line.substr(i, list.size()) == list) {
                const auto close = line.find(']', i);
                out += list;
                // The closing bracket is copied as the next byte.
                return close == std::string_view::npos ? line.size() : close;
            }
        }
    }
    return i;
}

} // namespace

std::string normalisedGraphCode(std::string_view code)
{
    std::string out;
    out.reserve(code.size());
    for (std::string_view line : split(code, '\n')) {
        const std::string_view t = trimLeft(line);
        if (t.empty() || startsWith(t, "#")) {
            continue;
        }
        std::size_t i = 0;
        while (i < line.size()) {
            if (line[i] == '"') {
                const auto close = line.find('"', i + 1);
                if (close != std::string_view::npos &&
                    looksLikeMeta(line.substr(i + 1, close - i - 1))) {
                    out += "\"\"";
                    i = close + 1;
                    continue;
                }
            }
            if (line[i] == '#' && i > 0 && line[i - 1] == ' ') {
                break; // a trailing comment
            }
            // A rank's own GPU: "device(type='cuda', index=1)" is rank 0's "index=0".
            if (line[i] == 'i' && line.substr(i, 6) == "index=" && i + 6 < line.size() &&
                isDigit(line[i + 6]) &&
                line.rfind("device(", i) != std::string_view::npos) {
                out += "index=#";
                i += 6;
                while (i < line.size() && isDigit(line[i])) {
                    ++i;
                }
                continue;
            }
            out += line[i++];
        }
        while (!out.empty() && out.back() == ' ') {
            out.pop_back(); // the spaces before a trailing comment
        }
        out += '\n';
    }
    return out;
}

std::string normalisedGuards(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (std::string_view line : split(text, '\n')) {
        if (startsWith(trimLeft(line), "Guard latency")) {
            continue;
        }
        // The user line a guard came from ("  # h = F.gelu(h)  # test2.py:60 in fn") is where
        // this rank first installed it, not part of the guard.
        line = line.substr(0, line.find("  # "));
        std::size_t i = 0;
        while (i < line.size()) {
            const std::size_t done = normaliseGuardToken(line, i, out);
            if (done > i) {
                i = done;
            } else {
                out += line[i++];
            }
        }
        out += '\n';
    }
    return out;
}

std::vector<std::pair<int, std::vector<RankCompile>>> rankSequences(const model::Run& run)
{
    std::map<int, CompileMap> ranks;
    collect(run, ranks);
    std::vector<std::pair<int, std::vector<RankCompile>>> out;
    for (auto& [rank, compiles] : ranks) {
        std::vector<RankCompile> seq;
        for (auto& [id, c] : compiles) {
            seq.push_back(std::move(c));
        }
        out.emplace_back(rank, std::move(seq));
    }
    return out;
}

std::vector<Divergence> findDivergence(const model::Run& run)
{
    if (!hasSeveralRanks(run)) {
        return {}; // nothing to compare: the normalising below is not paid for
    }
    std::map<int, CompileMap> ranks;
    collect(run, ranks);
    std::vector<Divergence> out;
    if (ranks.size() < 2) {
        return out;
    }
    std::set<model::CompileId> ids;
    for (const auto& [rank, compiles] : ranks) {
        for (const auto& [id, c] : compiles) {
            ids.insert(id);
        }
    }
    for (const auto& id : ids) {
        compareCompile(id, ranks, out);
    }
    return out;
}

} // namespace fxs::diagnose
