#include "core/partition/project_file.h"

#include "core/partition/region_edit.h"
#include "core/util/digest.h"
#include "core/util/file_reader.h"
#include "core/util/json_parse.h"
#include "core/util/json_text.h"

#include <nlohmann/json.hpp>

namespace fxs::partition {

using nlohmann::json;

namespace {

json parsedOrNull(const std::optional<std::string>& text)
{
    if (!text || text->empty()) {
        return nullptr;
    }
    return parseJsonOrDiscarded(*text);
}

Error parseError(std::string message, std::string expected = {}, std::string found = {})
{
    Error e = makeError(ErrorCode::Parse, std::move(message));
    e.expected = std::move(expected);
    e.found = std::move(found);
    return e;
}

// obj[key] as a string into out when present; absent leaves out as it is. A value of another
// type is an error naming `where`.
Status optionalString(const json& obj, const char* key, const std::string& where,
                      std::string& out)
{
    const auto it = obj.find(key);
    if (it == obj.end()) {
        return {};
    }
    if (!it->is_string()) {
        return parseError(where + "." + key + " is not a string", "a JSON string",
                          dumpJson(*it).substr(0, 60));
    }
    out = it->get<std::string>();
    return {};
}

Result<ProjectRegion> regionFromJson(const json& j, std::size_t index)
{
    const std::string where = "regions[" + std::to_string(index) + "]";
    if (!j.is_object() || !j.contains("id") || !j["id"].is_string() || !j.contains("nodes") ||
        !j["nodes"].is_array()) {
        return parseError(where + " is not a region", "an object with \"id\" and \"nodes\"",
                          dumpJson(j).substr(0, 60));
    }
    ProjectRegion r;
    r.id = j["id"].get<std::string>();
    if (Status st = optionalString(j, "name", where, r.name); !st) {
        return st.error();
    }
    if (j.contains("annotation") && j["annotation"].is_object()) {
        r.annotation = dumpJson(j["annotation"]);
    }
    if (j.contains("options") && j["options"].is_object()) {
        r.options = dumpJson(j["options"]);
    }
    for (const auto& n : j["nodes"]) {
        if (!n.is_string()) {
            return parseError(where + ".nodes holds a non-string", "node names", dumpJson(n));
        }
        r.nodes.push_back(n.get<std::string>());
    }
    return r;
}

} // namespace

Project makeProject(const graph::Graph& graph, const std::vector<Region>& regions,
                    std::string sourcePath, std::string_view sourceText, std::string viewState)
{
    Project p;
    p.sourcePath = std::move(sourcePath);
    p.sourceSha256 = toHex(sha256(sourceText));
    p.viewState = std::move(viewState);
    for (const auto& r : regions) {
        ProjectRegion pr{r.id, r.name, r.annotation, r.options, {}};
        for (graph::NodeId id : r.nodes) {
            pr.nodes.push_back(graph.node(id).name);
        }
        p.regions.push_back(std::move(pr));
    }
    return p;
}

std::string serializeProject(const Project& project)
{
    json regions = json::array();
    for (const auto& r : project.regions) {
        regions.push_back({{"id", r.id},
                           {"name", r.name},
                           {"annotation", parsedOrNull(r.annotation)},
                           {"options", parsedOrNull(r.options)},
                           {"nodes", r.nodes}});
    }
    json view = parseJsonOrDiscarded(project.viewState.empty() ? "{}" : project.viewState);
    json j = {{"schema", project.schema},
              {"kind", "fxscope-project"},
              {"source", {{"path", project.sourcePath}, {"sha256", project.sourceSha256}}},
              {"regions", std::move(regions)},
              {"view_state", view.is_object() ? view : json::object()}};
    return dumpJson(j, 2) + "\n";
}

Result<Project> parseProject(std::string_view text)
{
    auto parsed = parseJson(text);
    if (!parsed.ok()) {
        return parseError("not a project file: " + parsed.error().message, parsed.error().expected,
                          parsed.error().found);
    }
    const json& j = *parsed;
    if (!j.is_object()) {
        return parseError("not a project file: the text is not a JSON object");
    }
    const auto schema = j.find("schema");
    if (schema == j.end() || !schema->is_number_unsigned() ||
        schema->get<std::uint64_t>() > 1000) {
        return parseError("project file has no schema number", "\"schema\": 1",
                          schema == j.end() ? std::string() : dumpJson(*schema));
    }
    Project p;
    p.schema = schema->get<int>();
    if (p.schema > kProjectSchema) {
        return makeError(ErrorCode::Unsupported, "project schema " + std::to_string(p.schema) +
                                                     " is newer than this fxscope reads (" +
                                                     std::to_string(kProjectSchema) + ")");
    }
    // Each part, when present, of its type: a mistyped one is an error that names it, never
    // dropped (nor an exception out of the JSON library).
    struct Part {
        const char* key;
        bool object; // else a list
    };
    for (const Part part : {Part{"source", true}, Part{"regions", false},
                            Part{"view_state", true}}) {
        const auto it = j.find(part.key);
        if (it != j.end() && !(part.object ? it->is_object() : it->is_array())) {
            const char* expected = part.object ? "an object" : "a list";
            return parseError(std::string("\"") + part.key + "\" is not " + expected, expected,
                              dumpJson(*it).substr(0, 60));
        }
    }
    if (j.contains("source")) {
        for (Status st : {optionalString(j["source"], "path", "source", p.sourcePath),
                          optionalString(j["source"], "sha256", "source", p.sourceSha256)}) {
            if (!st) {
                return st.error();
            }
        }
    }
    if (j.contains("regions")) {
        const json& regions = j["regions"];
        for (std::size_t i = 0; i < regions.size(); ++i) {
            auto r = regionFromJson(regions[i], i);
            if (!r) {
                return r.error();
            }
            p.regions.push_back(std::move(*r));
        }
    }
    if (j.contains("view_state")) {
        p.viewState = dumpJson(j["view_state"]);
    }
    return p;
}

Status saveProject(const std::string& path, const Project& project)
{
    return writeFile(path, serializeProject(project));
}

Result<Project> loadProject(const std::string& path)
{
    // A cap, so that a huge file given by mistake is refused before it is read (projects hold region lists and node names: far below this).
    auto text = readFile(path, ReadOptions{.maxBytes = std::size_t(64) << 20});
    if (!text) {
        return text.error();
    }
    auto p = parseProject(*text);
    if (!p) {
        Error e = p.error();
        e.where = path;
        return e;
    }
    return p;
}

Rematch rematchProject(const Project& project, const graph::Graph& graph,
                       std::string_view sourceText)
{
    Rematch out;
    out.sourceChanged = toHex(sha256(sourceText)) != project.sourceSha256;
    for (const auto& pr : project.regions) {
        Region r;
        r.id = pr.id;
        r.name = pr.name;
        r.annotation = pr.annotation;
        r.options = pr.options;
        for (const auto& name : pr.nodes) {
            if (const auto id = graph.find(name)) {
                r.nodes.push_back(*id);
            } else {
                out.missingNodes.push_back({pr.id, name});
            }
        }
        if (r.nodes.empty()) {
            out.emptyRegions.push_back(pr.id);
            continue;
        }
        // Check each region against those accepted so far; an illegal one is reported.
        auto trial = out.regions;
        trial.push_back(r);
        const EditResult check = validateRegions(graph, trial);
        if (!check.ok()) {
            out.invalidRegions.push_back({pr.id, check.refusal});
            continue;
        }
        computeRegionStats(graph, r);
        out.regions.push_back(std::move(r));
    }
    return out;
}

} // namespace fxs::partition
