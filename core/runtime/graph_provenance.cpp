#include "core/runtime/graph_provenance.h"

#include "core/util/json_parse.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <set>

namespace fxs::runtime {

const CallSite* CompiledGraph::site(int n) const
{
    if (n >= 1 && n <= static_cast<int>(sites.size()) && sites[n - 1].n == n) {
        return &sites[n - 1];
    }
    for (const auto& s : sites) {
        if (s.n == n) {
            return &s;
        }
    }
    return nullptr;
}

const CompiledGraph* RunProvenance::find(std::string_view key) const
{
    for (const auto& g : graphs) {
        if (g.key == key) {
            return &g;
        }
    }
    return nullptr;
}

namespace {

// "name:12" → ("name", 12); n = 0 when the handle has no number.
std::pair<std::string, int> splitHandle(const std::string& handle)
{
    const auto colon = handle.rfind(':');
    int n = 0;
    if (colon == std::string::npos ||
        std::from_chars(handle.data() + colon + 1, handle.data() + handle.size(), n).ec !=
            std::errc()) {
        return {handle, 0};
    }
    return {handle.substr(0, colon), n};
}

bool isTritonName(const std::string& name)
{
    return name.find('.') == std::string::npos;
}

std::vector<std::string> stringList(const nlohmann::json& v)
{
    std::vector<std::string> out;
    if (v.is_array()) {
        for (const auto& s : v) {
            if (s.is_string()) {
                out.push_back(s.get<std::string>());
            }
        }
    }
    return out;
}

// The artifacts of one FX lookup: what its compile logged between the previous lookup and it.
struct Window {
    std::string file;
    model::CompileId id;
    int from = 0;
    int to = 0;
    bool holds(const std::string& f, const model::CompileId& c, int line) const
    {
        return f == file && c == id && line > from && line < to;
    }
};

void addSites(CompiledGraph& g, const nlohmann::json& stacks, const nlohmann::json& mappings)
{
    std::map<int, CallSite> byN;
    auto site = [&](const std::string& handle) -> CallSite* {
        auto [name, n] = splitHandle(handle);
        if (n <= 0) {
            return nullptr;
        }
        auto& s = byN[n];
        s.n = n;
        s.name = name;
        s.triton = isTritonName(name);
        return &s;
    };
    if (stacks.is_object()) {
        for (const auto& [handle, frames] : stacks.items()) {
            if (auto* s = site(handle)) {
                s->stack = stringList(frames);
            }
        }
    }
    const auto cpp = mappings.is_object() ? mappings.find("cppCodeToPost") : mappings.end();
    if (cpp != mappings.end() && cpp->is_object() && !cpp->empty()) {
        g.postNodesFrom = "cppCodeToPost";
        for (const auto& [handle, nodes] : cpp->items()) {
            if (auto* s = site(handle)) {
                s->postNodes = stringList(nodes);
            }
        }
    }
    for (auto& [n, s] : byN) {
        g.sites.push_back(std::move(s));
    }
}

void addPostToPre(CompiledGraph& g, const nlohmann::json& mappings)
{
    const auto it = mappings.is_object() ? mappings.find("postToPre") : mappings.end();
    if (it == mappings.end() || !it->is_object()) {
        return;
    }
    for (const auto& [post, pre] : it->items()) {
        g.postToPre[post] = stringList(pre);
    }
}

// Backward graphs of PyTorch 2.11 log an empty node mapping: the output code's comments still
// name each call site's post-grad nodes.
void fillFromOutputCode(CompiledGraph& g, const std::string& code)
{
    const auto fromCode = outputCodeCallSites(code);
    if (fromCode.empty()) {
        return;
    }
    if (g.sites.empty()) {
        g.sites = fromCode;
    } else if (fromCode.size() != g.sites.size()) {
        g.notes.push_back("the output code has " + std::to_string(fromCode.size()) +
                          " call sites, the provenance " + std::to_string(g.sites.size()) +
                          ": its comments are not used");
        return;
    }
    for (std::size_t i = 0; i < g.sites.size(); ++i) {
        if (fromCode[i].name != g.sites[i].name) {
            g.notes.push_back("output code call site " + std::to_string(i + 1) + " is " +
                              fromCode[i].name + ", the provenance says " + g.sites[i].name);
            return;
        }
    }
    for (std::size_t i = 0; i < g.sites.size(); ++i) {
        auto nodes = fromCode[i].postNodes;
        if (g.postGrad) { // keep the names that are nodes of the post-grad graph
            std::erase_if(nodes, [&](const std::string& n) { return !g.postGrad->find(n); });
        }
        g.sites[i].postNodes = std::move(nodes);
    }
    g.postNodesFrom = "output code comments";
}

struct Collector {
    const model::Run& run;
    RunProvenance out;

    void addTritonInfo(const std::string& text);
    CompiledGraph graphFor(const model::CacheLookup& l, const Window& w, int indexInCompile);
};

void Collector::addTritonInfo(const std::string& text)
{
    auto json = parseJson(text);
    if (!json || !json->is_object()) {
        return;
    }
    for (const auto& [name, info] : json->items()) {
        TritonKernelInfo k;
        if (info.is_object()) {
            if (auto it = info.find("autotune_cache_state"); it != info.end() && it->is_string()) {
                k.autotuneState = it->get<std::string>();
            }
            if (auto it = info.find("compile_time_us"); it != info.end() && it->is_number()) {
                k.compileTimeUs = it->get<std::int64_t>();
            }
        }
        out.tritonInfo[name] = std::move(k);
    }
}

CompiledGraph Collector::graphFor(const model::CacheLookup& l, const Window& w, int index)
{
    CompiledGraph g;
    g.key = *l.key;
    g.compileId = l.compileId;
    bool inference = false;
    for (const auto& a : run.graphs) {
        if (a.compileId != l.compileId || a.file != l.file) {
            continue;
        }
        inference = inference || a.kind == "aot_inference_graph";
        if (a.kind == "after_pre_grad_graph" && !g.preGrad) {
            g.preGrad = a.parsedGraph();
        } else if (a.kind == "inductor_post_grad_graph" && w.holds(a.file, a.compileId, a.line)) {
            g.postGrad = a.parsedGraph();
        }
    }
    g.kind = inference ? "inference" : index == 0 ? "forward" : index == 1 ? "backward" : "";
    nlohmann::json stacks, mappings;
    std::string code;
    for (const auto& t : run.texts) {
        if (!w.holds(t.file, t.compileId, t.line)) {
            continue;
        }
        if (t.kind == "inductor_provenance_tracking_kernel_stack_traces") {
            stacks = parseJsonOrDiscarded(t.text);
        } else if (t.kind == "inductor_provenance_tracking_node_mappings") {
            mappings = parseJsonOrDiscarded(t.text);
        } else if (t.kind == "inductor_output_code") {
            code = t.text;
        }
    }
    addSites(g, stacks, mappings);
    addPostToPre(g, mappings);
    if (g.postNodesFrom.empty() && !code.empty()) {
        fillFromOutputCode(g, code);
    }
    if (g.sites.empty()) {
        g.notes.push_back("no kernel call sites logged (no provenance tracking, no output code)");
    }
    if (g.postToPre.empty()) {
        g.notes.push_back("no post-grad → pre-grad node mapping logged");
    }
    return g;
}

} // namespace

RunProvenance collectProvenance(const model::Run& run)
{
    Collector c{run, {}};
    for (const auto& t : run.texts) {
        if (t.kind == "triton_kernel_info") {
            c.addTritonInfo(t.text);
        }
    }
    std::vector<const model::CacheLookup*> fx;
    for (const auto& l : run.lookups) {
        if (l.cache == model::CacheKind::FxGraph) {
            fx.push_back(&l);
        }
    }
    std::stable_sort(fx.begin(), fx.end(), [](const auto* a, const auto* b) {
        return std::tie(a->file, a->line) < std::tie(b->file, b->line);
    });
    std::map<std::pair<std::string, model::CompileId>, std::pair<int, int>> seen; // last line, n
    for (const auto* l : fx) {
        auto& [lastLine, count] = seen[{l->file, l->compileId}];
        const Window w{l->file, l->compileId, lastLine, l->line};
        const int index = count++;
        lastLine = l->line;
        if (l->key && !l->key->empty() && !c.out.find(*l->key)) {
            c.out.graphs.push_back(c.graphFor(*l, w, index));
        }
    }
    return std::move(c.out);
}

namespace {

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
        s.remove_prefix(1);
    }
    while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) {
        s.remove_suffix(1);
    }
    return s;
}

std::vector<std::string> sourceNodes(std::string_view comment)
{
    static constexpr std::string_view kHead = "# Topologically Sorted Source Nodes: [";
    std::vector<std::string> out;
    const auto end = comment.find(']');
    if (end == std::string_view::npos) {
        return out;
    }
    auto list = comment.substr(kHead.size(), end - kHead.size());
    while (!list.empty()) {
        const auto comma = list.find(',');
        const auto item = trim(list.substr(0, comma));
        if (!item.empty()) {
            out.emplace_back(item);
        }
        if (comma == std::string_view::npos) {
            break;
        }
        list.remove_prefix(comma + 1);
    }
    return out;
}

bool isIdentChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

// The callee of a call-site line: "x.run(" → "x"; "extern_kernels.mm(" / "torch.ops.a.b.c(".
std::string calleeOf(std::string_view line)
{
    if (const auto run = line.find(".run("); run != std::string_view::npos) {
        std::size_t b = run;
        while (b > 0 && isIdentChar(line[b - 1]) && line[b - 1] != '.') {
            --b;
        }
        return std::string(line.substr(b, run - b));
    }
    for (std::string_view head : {"extern_kernels.", "torch.ops."}) {
        const auto at = line.find(head);
        if (at == std::string_view::npos || (at > 0 && isIdentChar(line[at - 1]))) {
            continue;
        }
        std::size_t e = at;
        while (e < line.size() && isIdentChar(line[e])) {
            ++e;
        }
        if (e < line.size() && line[e] == '(') {
            return std::string(line.substr(at, e - at));
        }
    }
    return {};
}

} // namespace

std::vector<CallSite> outputCodeCallSites(std::string_view code)
{
    std::vector<CallSite> out;
    const auto call = code.find("def call(");
    if (call == std::string_view::npos) {
        return out;
    }
    code.remove_prefix(call);
    std::vector<std::string> pending;
    while (!code.empty()) {
        const auto nl = code.find('\n');
        const auto line = trim(code.substr(0, nl));
        code.remove_prefix(nl == std::string_view::npos ? code.size() : nl + 1);
        if (line.starts_with("def benchmark_compiled_module") || line.starts_with("if __name__")) {
            break;
        }
        if (line.starts_with("# Topologically Sorted Source Nodes: [")) {
            pending = sourceNodes(line);
        } else if (!line.starts_with("#")) {
            auto callee = calleeOf(line);
            if (!callee.empty()) {
                CallSite s;
                s.n = static_cast<int>(out.size()) + 1;
                s.triton = isTritonName(callee);
                s.name = std::move(callee);
                s.postNodes = std::move(pending);
                pending.clear();
                out.push_back(std::move(s));
            }
        }
    }
    return out;
}

} // namespace fxs::runtime
