#include "core/explain/recompile_cause.h"

#include "core/io/guard_tree_parser.h"
#include "core/util/strings.h"

#include <map>
#include <optional>
#include <tuple>

namespace fxs::explain {

namespace {

// What a reason says, read apart: "tensor 'x' size mismatch at index 0. expected 8, actual 16".
struct ParsedReason {
    std::string source;   // "L['x']"
    std::string what;     // "size", "stride", "dtype", "requires_grad", ... ("" for others)
    int index = -1;       // "at index N"
    std::string expected; // "8", "Float"
    std::string actual;   // "16", "Half"
};

// "... expected 8, actual 16" → ("8", "16").
void readExpectedActual(std::string_view text, ParsedReason& p)
{
    const auto e = text.find("expected ");
    const auto a = text.find(", actual ");
    if (e == std::string_view::npos || a == std::string_view::npos || a < e) {
        return;
    }
    p.expected.assign(trim(text.substr(e + 9, a - e - 9)));
    p.actual.assign(trim(text.substr(a + 9)));
}

// The first Dynamo source in a guard expression: L['x'], G['torch'].nn, L['self'].w.size()[0].
std::string firstSource(std::string_view text)
{
    std::size_t at = std::string_view::npos;
    for (std::string_view start : {"L['", "G['"}) {
        at = std::min(at, text.find(start));
    }
    if (at == std::string_view::npos) {
        return {};
    }
    int depth = 0;
    std::size_t i = at;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '[' || c == '(') {
            ++depth;
        } else if (c == ']' || c == ')') {
            if (depth == 0) {
                break;
            }
            --depth;
        } else if (depth == 0 && (c == ' ' || c == ',')) {
            break;
        }
    }
    return std::string(text.substr(at, i - at));
}

ParsedReason parseReason(std::string_view reason)
{
    ParsedReason p;
    static constexpr std::string_view kTensor = "tensor '";
    if (startsWith(reason, kTensor)) {
        const auto close = reason.find('\'', kTensor.size());
        const std::string_view name = reason.substr(kTensor.size(), close - kTensor.size());
        p.source = name.find('[') == std::string_view::npos ? "L['" + std::string(name) + "']"
                                                            : std::string(name);
        std::string_view rest = close == std::string_view::npos ? "" : reason.substr(close + 1);
        const auto mismatch = rest.find(" mismatch");
        if (mismatch != std::string_view::npos) {
            p.what.assign(trim(rest.substr(0, mismatch)));
        }
        const auto idx = rest.find("at index ");
        if (idx != std::string_view::npos) {
            const std::string_view digits = rest.substr(idx + 9, rest.find('.', idx) - idx - 9);
            p.index = static_cast<int>(parseInt(digits).value_or(-1));
        }
        readExpectedActual(rest, p);
        return p;
    }
    p.source = firstSource(reason);
    return p;
}

// "0/1: tensor 'w' ..." → ("0/1", "tensor 'w' ...").
std::pair<std::string, std::string> splitEntry(std::string_view reason)
{
    const auto colon = reason.find(": ");
    if (colon != std::string_view::npos && model::CompileId::parse(reason.substr(0, colon))) {
        return {std::string(reason.substr(0, colon)), std::string(reason.substr(colon + 2))};
    }
    return {std::string(), std::string(reason)};
}

using CompileKey = std::tuple<int, std::string>; // rank, compile id without attempt

CompileKey keyOf(int rank, const model::CompileId& id)
{
    return {rank, id.withoutAttempt().toString()};
}

// The failed guard: a TENSOR_MATCH (or other guard) on the reason's source.
const model::GuardEntry* findGuard(const std::vector<model::GuardEntry>& guards,
                                   const ParsedReason& p, std::string_view reason)
{
    const model::GuardEntry* bySource = nullptr;
    for (const auto& g : guards) {
        if (g.manager) {
            continue;
        }
        if (!p.what.empty() && g.kind == "TENSOR_MATCH" && g.source == p.source) {
            return &g;
        }
        if (!reason.empty() && g.expr == reason) {
            return &g;
        }
        if (!bySource && !p.source.empty() && g.expr.find(p.source) != std::string::npos) {
            bySource = &g;
        }
    }
    return bySource;
}

// A guard comment's file is cut at the front ("ome/user/demo/x.py"): the run's interned file
// names and compiled functions' files complete it.
std::string completeFile(const model::Run& run, const std::string& file)
{
    if (file.empty() || startsWith(file, "/")) {
        return file;
    }
    for (const auto& [log, table] : run.internedStrings) {
        for (const auto& [id, path] : table) {
            if (endsWith(path, "/" + file) || endsWith(path, file)) {
                return path;
            }
        }
    }
    return file;
}

std::string actionFor(const model::Run& run, const RecompileCause& c, const ParsedReason& p)
{
    const std::string sizeSource =
        p.index >= 0 && (p.what == "size" || p.what == "stride")
            ? p.source + "." + p.what + "()[" + std::to_string(p.index) + "]"
            : std::string();
    const model::SymbolRecord* symbol = nullptr;
    for (const auto& s : run.symbols) {
        if (s.origin.rank != c.rank || s.origin.compileId.withoutAttempt() != c.compileId) {
            continue;
        }
        if ((!sizeSource.empty() && s.source == sizeSource) ||
            (sizeSource.empty() && s.source == p.source)) {
            symbol = &s;
            break;
        }
    }
    if (symbol) {
        return "dynamic: " + symbol->symbol + " = " + readableSource(symbol->source);
    }
    if (!sizeSource.empty()) {
        return "new graph for " + readableSource(sizeSource) + " = " + p.actual;
    }
    if (!p.what.empty() && !p.actual.empty()) {
        return "new graph for " + p.what + " " + p.actual;
    }
    return c.input.empty() ? std::string("new graph") : "new graph specialised on " + c.input;
}

class CauseBuilder {
public:
    explicit CauseBuilder(const model::Run& run) : m_run(run)
    {
        for (const auto& t : run.texts) {
            if (t.kind == "dynamo_cpp_guards_str" && t.compileId.valid()) {
                m_guardTexts.emplace(keyOf(t.rank, t.compileId), &t.text);
            }
        }
    }

    RecompileCause build(const model::RecompileReasons& rr)
    {
        RecompileCause c;
        c.compileId = rr.origin.compileId.withoutAttempt();
        c.rank = rr.origin.rank;
        c.reasons = rr.reasons;
        c.file = rr.origin.file;
        c.line = rr.origin.line;
        if (rr.reasons.empty()) {
            c.action = "new graph";
            return c;
        }
        auto [entry, reason] = splitEntry(rr.reasons.front());
        c.failedEntry = entry;
        c.reason = reason;
        const ParsedReason p = parseReason(reason);
        c.inputSource = p.source;
        c.input = readableSource(p.source);
        c.mismatch = p.what;
        c.dim = p.index;
        c.expected = p.expected;
        c.actual = p.actual;
        locateGuard(c, p);
        c.action = actionFor(m_run, c, p);
        return c;
    }

private:
    void locateGuard(RecompileCause& c, const ParsedReason& p)
    {
        const auto entryId = model::CompileId::parse(c.failedEntry);
        const auto* guards = entryId ? guardsOf(keyOf(c.rank, *entryId)) : nullptr;
        if (const auto* g = guards ? findGuard(*guards, p, c.reason) : nullptr) {
            c.guard = g->kind + ": " + g->expr;
            c.sourceFile = completeFile(m_run, g->file);
            c.sourceLine = g->line;
            c.sourceCode = g->userCode;
            return;
        }
        // No guard tree: the user line of a symbol made for the input, if any.
        for (const auto& s : m_run.symbols) {
            if (s.origin.rank == c.rank && startsWith(s.source, p.source) && !p.source.empty() &&
                !s.userStack.empty()) {
                c.sourceFile = s.userStack.back().file;
                c.sourceLine = s.userStack.back().line;
                c.sourceCode = s.userStack.back().code;
                return;
            }
        }
    }

    const std::vector<model::GuardEntry>* guardsOf(const CompileKey& key)
    {
        if (auto it = m_parsed.find(key); it != m_parsed.end()) {
            return &it->second;
        }
        const auto text = m_guardTexts.find(key);
        if (text == m_guardTexts.end()) {
            return nullptr;
        }
        return &m_parsed.emplace(key, io::parseGuardTree(*text->second)).first->second;
    }

    const model::Run& m_run;
    std::map<CompileKey, const std::string*> m_guardTexts;
    std::map<CompileKey, std::vector<model::GuardEntry>> m_parsed;
};

// Replaces every `L['name']` / `G['name']` with name.
std::string unwrapScopes(std::string_view s)
{
    std::string out;
    std::size_t i = 0;
    while (i < s.size()) {
        if ((s[i] == 'L' || s[i] == 'G') && s.substr(i + 1, 2) == "['") {
            const auto close = s.find("']", i + 3);
            if (close != std::string_view::npos) {
                out.append(s.substr(i + 3, close - i - 3));
                i = close + 2;
                continue;
            }
        }
        out += s[i++];
    }
    return out;
}

} // namespace

std::string readableSource(std::string_view source)
{
    std::string out = unwrapScopes(source);
    for (std::string_view method : {".size()[", ".stride()["}) {
        std::size_t at = 0;
        while ((at = out.find(method, at)) != std::string::npos) {
            const auto close = out.find(']', at + method.size());
            if (close == std::string::npos) {
                break;
            }
            const std::string index = out.substr(at + method.size(), close - at - method.size());
            const std::string name(method.substr(0, method.size() - 3)); // ".size"
            out.replace(at, close + 1 - at, name + "(" + index + ")");
            at += name.size();
        }
    }
    return out;
}

std::string RecompileCause::summary() const
{
    std::string s = reason.empty() ? std::string("no reason logged") : reason;
    if (!action.empty()) {
        s += " \u2192 " + action;
    }
    return s;
}

std::vector<RecompileCause> recompileCauses(const model::Run& run)
{
    std::vector<RecompileCause> out;
    try {
        CauseBuilder builder(run);
        out.reserve(run.recompileReasons.size());
        for (const auto& rr : run.recompileReasons) {
            out.push_back(builder.build(rr));
        }
    } catch (const std::exception&) {
        // Allocation failure: the causes found so far are still right.
    }
    return out;
}

} // namespace fxs::explain
