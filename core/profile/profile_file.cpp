// Versioned JSON form of a RuntimeProfile (nlohmann; doubles round-trip exactly) and the
// comparison of two profiles.
#include "core/profile/profile_file.h"

#include "core/util/file_reader.h"
#include "core/util/json_parse.h"
#include "core/util/json_text.h"

#include <nlohmann/json.hpp>

#include <map>

namespace fxs::profile {
namespace {

using nlohmann::json;
constexpr const char* kSchema = "fxscope-runtime-profile";

json statJson(const TimeStat& s)
{
    return {{"median_ms", s.medianMs}, {"spread_ms", s.spreadMs}, {"min_ms", s.minMs},
            {"max_ms", s.maxMs}};
}

TimeStat statFrom(const json& j)
{
    return {j.at("median_ms").get<double>(), j.at("spread_ms").get<double>(),
            j.at("min_ms").get<double>(), j.at("max_ms").get<double>()};
}

json optMs(const std::optional<double>& v)
{
    return v ? json(*v) : json(nullptr);
}

std::optional<double> optFrom(const json& j)
{
    return j.is_null() ? std::nullopt : std::optional<double>(j.get<double>());
}

Bound boundFrom(const json& j)
{
    const auto b = parseBound(j.get<std::string>());
    if (!b) {
        throw std::invalid_argument("bound must be \"memory\" or \"compute\"");
    }
    return *b;
}

json nodeJson(const NodeProfile& n)
{
    return {{"name", n.name}, {"target", n.target}, {"region", n.region},
            {"eager", statJson(n.eager)}, {"compiled_ms", optMs(n.compiledMs)},
            {"bytes", n.bytes}, {"bytes_moved", n.bytesMoved}, {"flops", n.flops},
            {"share", n.share}, {"bound", boundName(n.bound)}, {"efficiency", n.efficiency}};
}

NodeProfile nodeFrom(const json& j)
{
    NodeProfile n;
    n.name = j.at("name").get<std::string>();
    n.target = j.at("target").get<std::string>();
    n.region = j.at("region").get<std::string>();
    n.eager = statFrom(j.at("eager"));
    n.compiledMs = optFrom(j.at("compiled_ms"));
    n.bytes = j.at("bytes").get<std::int64_t>();
    n.bytesMoved = j.at("bytes_moved").get<std::int64_t>();
    n.flops = j.at("flops").get<double>();
    n.share = j.at("share").get<double>();
    n.bound = boundFrom(j.at("bound"));
    n.efficiency = j.at("efficiency").get<double>();
    return n;
}

json regionJson(const RegionProfile& r)
{
    return {{"id", r.id}, {"nodes", r.nodes}, {"eager", statJson(r.eager)},
            {"compiled_ms", optMs(r.compiledMs)}, {"compiled", statJson(r.compiled)},
            {"compile_state", r.compileState},
            {"bytes_moved", r.bytesMoved}, {"flops", r.flops}, {"share", r.share},
            {"bound", boundName(r.bound)}, {"efficiency", r.efficiency}};
}

RegionProfile regionFrom(const json& j)
{
    RegionProfile r;
    r.id = j.at("id").get<std::string>();
    r.nodes = j.at("nodes").get<std::vector<std::string>>();
    r.eager = statFrom(j.at("eager"));
    r.compiledMs = optFrom(j.at("compiled_ms"));
    if (j.contains("compiled")) { // added field: older profiles have no compiled spread
        r.compiled = statFrom(j.at("compiled"));
    }
    r.compileState = j.at("compile_state").get<std::string>();
    r.bytesMoved = j.at("bytes_moved").get<std::int64_t>();
    r.flops = j.at("flops").get<double>();
    r.share = j.at("share").get<double>();
    r.bound = boundFrom(j.at("bound"));
    r.efficiency = j.at("efficiency").get<double>();
    return r;
}

// Version 2: the whole graph run with its compiled regions in place (absent: not measured).
json compiledGraphJson(const CompiledGraphProfile& c)
{
    return {{"eager", statJson(c.eager)}, {"total", statJson(c.total)},
            {"regions_used", c.regionsUsed},
            {"regions_total", c.regionsTotal}, {"matmul_groups", c.matmulGroups},
            {"device_ms", optMs(c.deviceMs)}, {"eager_device_ms", optMs(c.eagerDeviceMs)}};
}

CompiledGraphProfile compiledGraphFrom(const json& j)
{
    CompiledGraphProfile c;
    c.eager = statFrom(j.at("eager"));
    c.total = statFrom(j.at("total"));
    c.regionsUsed = j.at("regions_used").get<int>();
    c.regionsTotal = j.at("regions_total").get<int>();
    c.deviceMs = optFrom(j.at("device_ms"));
    c.eagerDeviceMs = optFrom(j.at("eager_device_ms"));
    c.matmulGroups = j.value("matmul_groups", 0); // absent in files written before it
    if (c.regionsUsed < 0 || c.regionsUsed > c.regionsTotal) {
        throw std::invalid_argument("compiled_graph: regions_used must be 0..regions_total");
    }
    if (c.matmulGroups < 0) {
        throw std::invalid_argument("compiled_graph: matmul_groups must be 0 or more");
    }
    return c;
}

RuntimeProfile profileFrom(const json& j)
{
    RuntimeProfile p;
    p.graph = j.at("graph").get<std::string>();
    p.device = j.at("device").get<std::string>();
    p.repeat = j.at("repeat").get<int>();
    p.total = statFrom(j.at("total"));
    p.peakBytes = j.at("peak_bytes").get<std::int64_t>();
    p.peaks.copyGBps = j.at("copy_GBps").get<double>();
    p.peaks.matmulGflops = j.at("matmul_GFLOPs").get<double>();
    for (const auto& n : j.at("nodes")) {
        p.nodes.push_back(nodeFrom(n));
    }
    for (const auto& r : j.at("regions")) {
        p.regions.push_back(regionFrom(r));
    }
    p.notes = j.at("notes").get<std::vector<std::string>>();
    if (j.contains("compiled_graph")) { // version 2; version 1 files have none
        p.compiledGraph = compiledGraphFrom(j.at("compiled_graph"));
    }
    return p;
}

void addDeltas(std::vector<Delta>& out, const std::vector<std::pair<std::string, double>>& before,
               const std::vector<std::pair<std::string, double>>& after)
{
    std::map<std::string, std::size_t> index;
    for (const auto& [name, ms] : before) {
        index[name] = out.size();
        out.push_back({name, ms, std::nullopt});
    }
    for (const auto& [name, ms] : after) {
        if (auto it = index.find(name); it != index.end()) {
            out[it->second].afterMs = ms;
        } else {
            out.push_back({name, std::nullopt, ms});
        }
    }
}

} // namespace

std::string serializeProfile(const RuntimeProfile& p)
{
    json nodes = json::array();
    for (const auto& n : p.nodes) {
        nodes.push_back(nodeJson(n));
    }
    json regions = json::array();
    for (const auto& r : p.regions) {
        regions.push_back(regionJson(r));
    }
    json doc{{"schema", kSchema}, {"version", kProfileSchemaVersion}, {"graph", p.graph},
             {"device", p.device}, {"repeat", p.repeat}, {"total", statJson(p.total)},
             {"peak_bytes", p.peakBytes}, {"copy_GBps", p.peaks.copyGBps},
             {"matmul_GFLOPs", p.peaks.matmulGflops}, {"nodes", nodes}, {"regions", regions},
             {"notes", p.notes}};
    if (p.compiledGraph) {
        doc["compiled_graph"] = compiledGraphJson(*p.compiledGraph);
    }
    return dumpJson(doc, 2);
}

Result<RuntimeProfile> parseProfile(std::string_view text)
{
    try {
        const auto parsed = parseJson(text);
        if (!parsed.ok()) {
            return parsed.error();
        }
        const json& j = *parsed;
        if (!j.is_object() || j.value("schema", std::string()) != kSchema) {
            Error e = makeError(ErrorCode::Unsupported, "not an fxscope run-time profile");
            e.expected = std::string("\"schema\": \"") + kSchema + "\"";
            return e;
        }
        const int version = j.at("version").get<int>();
        if (version > kProfileSchemaVersion) {
            Error e = makeError(ErrorCode::Unsupported, "profile written by a newer fxscope");
            e.expected = "version <= " + std::to_string(kProfileSchemaVersion);
            e.found = std::to_string(version);
            return e;
        }
        return profileFrom(j);
    } catch (const std::exception& ex) {
        return makeError(ErrorCode::Parse, std::string("malformed profile: ") + ex.what());
    }
}

Status saveProfile(const std::string& path, const RuntimeProfile& profile)
{
    return writeFile(path, serializeProfile(profile) + "\n");
}

Result<RuntimeProfile> loadProfile(const std::string& path)
{
    // A cap, so that a huge file given by mistake is refused before it is read (profiles hold one entry per node: far below this).
    auto text = readFile(path, ReadOptions{.maxBytes = std::size_t(256) << 20});
    if (!text) {
        return text.error();
    }
    auto p = parseProfile(*text);
    if (!p) {
        Error e = p.error();
        e.where = path;
        return e;
    }
    return p;
}

std::optional<double> Delta::ratio() const
{
    if (!beforeMs || !afterMs || *beforeMs <= 0) {
        return std::nullopt;
    }
    return *afterMs / *beforeMs;
}

ProfileComparison compareProfiles(const RuntimeProfile& before, const RuntimeProfile& after)
{
    ProfileComparison c;
    c.beforeTotalMs = before.total.medianMs;
    c.afterTotalMs = after.total.medianMs;
    if (before.compiledGraph) {
        c.beforeCompiledTotalMs = before.compiledGraph->total.medianMs;
    }
    if (after.compiledGraph) {
        c.afterCompiledTotalMs = after.compiledGraph->total.medianMs;
    }
    auto nodeTimes = [](const RuntimeProfile& p) {
        std::vector<std::pair<std::string, double>> v;
        for (const auto& n : p.nodes) {
            v.emplace_back(n.name, n.eager.medianMs);
        }
        return v;
    };
    auto regionTimes = [](const RuntimeProfile& p) {
        std::vector<std::pair<std::string, double>> v;
        for (const auto& r : p.regions) {
            v.emplace_back(r.id, r.compiledMs.value_or(r.eager.medianMs));
        }
        return v;
    };
    addDeltas(c.nodes, nodeTimes(before), nodeTimes(after));
    addDeltas(c.regions, regionTimes(before), regionTimes(after));
    return c;
}

} // namespace fxs::profile
