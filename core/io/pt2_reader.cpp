#include "core/io/pt2_reader.h"

#include "core/io/export_graph_reader.h"
#include "core/io/export_meta.h"
#include "core/io/export_program_reader.h"
#include "core/util/zip_archive.h"
#include "core/util/file_reader.h"
#include "core/util/json_parse.h"
#include "core/util/strings.h"

#include <simdjson.h>

#include <algorithm>
#include <exception>
#include <set>

namespace fxs::io {
namespace {

constexpr std::uint64_t kMaxConfigBytes = 64ull << 20;

// Where the program sits: "<root>models/<name>.json" or "<root>serialized_exported_program.json".
struct ProgramEntry {
    std::string entry;
    std::string root;  // "small_mlp/" (with the slash) or ""
    std::string model; // "model"; "" for legacy archives
    bool legacy = false;
};

std::optional<ProgramEntry> findProgram(const ZipArchive& zip, Diagnostics& d)
{
    std::vector<ProgramEntry> found;
    for (const auto& name : zip.names()) {
        const auto at = name.rfind("models/");
        if (at != std::string::npos && endsWith(name, ".json") &&
            name.find('/', at + 7) == std::string::npos && (at == 0 || name[at - 1] == '/')) {
            found.push_back({name, name.substr(0, at),
                             name.substr(at + 7, name.size() - at - 12), false});
        } else if (endsWith(name, "serialized_exported_program.json")) {
            found.push_back({name, name.substr(0, name.size() - 32), {}, true});
        }
    }
    if (found.empty()) {
        return std::nullopt;
    }
    for (const auto& f : found) { // the default model first
        if (f.model == "model") {
            return f;
        }
    }
    if (found.size() > 1) {
        d.warning(zip.path(), 0,
                  "the archive holds " + std::to_string(found.size()) + " programs; reading " +
                      found.front().entry);
    }
    return found.front();
}

Error noProgram(const ZipArchive& zip)
{
    std::string names;
    for (std::size_t i = 0; i < zip.names().size() && i < 4; ++i) {
        names += (i > 0 ? ", " : "") + zip.names()[i];
    }
    Error e = makeError(ErrorCode::Parse, "the zip archive holds no torch.export program",
                        zip.path());
    e.expected = "an entry <root>/models/<name>.json or serialized_exported_program.json";
    e.found = names.empty() ? "an empty archive" : abbreviate(names, 120);
    return e;
}

using detail::JsonValue;

// One weights or constants config: {"config": {fqn: {path_name, is_param, use_pickle,
// tensor_meta}}}. Weights in fqn order (as the sorted JSON DOM read them before).
void readPayloadConfig(const ZipArchive& zip, const std::string& entry, const std::string& dir,
                       bool constants, model::ExportedProgram& p, Diagnostics& d)
{
    auto bytes = zip.read(entry, kMaxConfigBytes);
    if (!bytes.ok()) {
        d.error(bytes.error().where, 0, bytes.error().message, bytes.error().expected,
                bytes.error().found);
        return;
    }
    simdjson::dom::parser parser;
    const JsonValue config = checkJsonNesting(*bytes).ok()
                                 ? detail::parsePiece(parser, *bytes, false).value["config"]
                                 : JsonValue();
    if (!config.isObject()) {
        d.error(zip.path() + "!" + entry, 0, "unreadable payload config",
                "{\"config\": {name: {path_name, ...}}}", abbreviate(*bytes));
        return;
    }
    std::map<std::string, std::int64_t> hints;
    const std::size_t first = p.weights.size();
    config.forEachMember([&](std::string_view fqn, const JsonValue& meta) {
        model::ExportWeight w;
        w.fqn = std::string(fqn);
        w.entry = dir + detail::stringMember(meta, "path_name");
        w.constant = constants;
        w.isParam = meta["is_param"].toBool();
        w.pickled = meta["use_pickle"].toBool();
        if (const JsonValue tm = meta["tensor_meta"]; tm.present()) {
            w.meta = detail::tensorMetaOf(tm, hints);
            w.storageOffset = tm["storage_offset"]["as_int"].toInt(0);
        }
        p.weights.push_back(std::move(w));
    });
    std::stable_sort(p.weights.begin() + static_cast<std::ptrdiff_t>(first), p.weights.end(),
                     [](const auto& a, const auto& b) { return a.fqn < b.fqn; });
}

// Archives before the raw-weights layout: one torch.save dict per kind, keyed by fqn.
void indexPickledDicts(const ProgramEntry& at, model::ExportedProgram& p)
{
    const std::string weights = at.legacy ? at.root + "serialized_state_dict.pt"
                                          : at.root + "data/weights/" + at.model + ".pt";
    const std::string constants = at.legacy ? at.root + "serialized_constants.pt"
                                            : at.root + "data/constants/" + at.model + ".pt";
    for (const auto& in : p.inputs) {
        const bool state = in.kind == model::ExportInputKind::Parameter ||
                           in.kind == model::ExportInputKind::Buffer;
        if (!state && in.kind != model::ExportInputKind::TensorConstant) {
            continue;
        }
        if (!in.persistent) { // non-persistent buffers live with the constants
            p.weights.push_back({in.target, constants, true, false, true, std::nullopt, 0});
            continue;
        }
        p.weights.push_back({in.target, state ? weights : constants, !state,
                             in.kind == model::ExportInputKind::Parameter, true, std::nullopt, 0});
    }
}

void indexWeights(const ZipArchive& zip, const ProgramEntry& at, model::ExportedProgram& p,
                  Diagnostics& d)
{
    const std::string wdir = at.root + "data/weights/";
    const std::string cdir = at.root + "data/constants/";
    const std::string wconfig = wdir + at.model + "_weights_config.json";
    if (!at.legacy && zip.contains(wconfig)) {
        readPayloadConfig(zip, wconfig, wdir, false, p, d);
        if (const std::string cconfig = cdir + at.model + "_constants_config.json";
            zip.contains(cconfig)) {
            readPayloadConfig(zip, cconfig, cdir, true, p, d);
        }
    } else {
        indexPickledDicts(at, p);
    }
}

// Every state input has its weight, every weight its entry, every raw entry enough bytes.
void checkWeights(const ZipArchive& zip, const model::ExportedProgram& p, Diagnostics& d)
{
    for (const auto& in : p.inputs) {
        const bool needs = in.kind == model::ExportInputKind::Parameter ||
                           in.kind == model::ExportInputKind::Buffer ||
                           in.kind == model::ExportInputKind::TensorConstant;
        if (needs && p.weight(in.target) == nullptr) {
            d.error(zip.path(), 0,
                    "no weight for " + std::string(model::exportInputKindName(in.kind)) + " '" +
                        in.target + "' (placeholder " + in.name + ")",
                    "an entry in the weights or constants config", "none");
        }
    }
    std::set<std::string> reported;
    for (const auto& w : p.weights) {
        const auto size = zip.size(w.entry);
        if (!size) {
            if (reported.insert(w.entry).second) {
                d.error(zip.path() + "!" + w.entry, 0,
                        "weight file missing from the archive (for '" + w.fqn + "')",
                        "an entry named " + w.entry, "none");
            }
            continue;
        }
        const auto nbytes = w.meta ? w.meta->nbytes() : std::nullopt;
        if (!w.pickled && nbytes && *size < std::uint64_t(*nbytes)) {
            d.error(zip.path() + "!" + w.entry, 0, "weight file too short for '" + w.fqn + "'",
                    std::to_string(*nbytes) + " bytes (" + w.meta->toString() + ")",
                    std::to_string(*size) + " bytes");
        }
    }
}

void checkFormat(const ZipArchive& zip, const ProgramEntry& at, Diagnostics& d)
{
    const std::string entry = at.root + "archive_format";
    if (at.legacy || !zip.contains(entry)) {
        return;
    }
    auto format = zip.read(entry, 64);
    if (format.ok() && trim(*format) != "pt2") {
        d.warning(zip.path() + "!" + entry, 0,
                  "archive format '" + abbreviate(trim(*format)) + "' is not 'pt2'; reading on");
    }
}

Result<Pt2ReadResult> readArchive(const ZipArchive& zip)
{
    Pt2ReadResult out;
    auto at = findProgram(zip, out.diagnostics);
    if (!at) {
        return noProgram(zip);
    }
    auto program = std::make_shared<model::ExportedProgram>();
    program->archivePath = zip.path();
    program->modelName = at->model;
    program->layout = at->legacy ? "legacy" : "pt2";
    checkFormat(zip, *at, out.diagnostics);
    // Read once, with the parser's padding after it: the text is never copied.
    auto json = zip.read(at->entry, kMaxProgramJsonBytes, kProgramJsonPadding);
    if (!json.ok()) {
        return json.error();
    }
    const std::string where = zip.path() + "!" + at->entry;
    auto read = json->capacity() >= json->size() + kProgramJsonPadding
                    ? readPaddedProgramJson(*json, json->capacity(), where)
                    : readExportedProgramJson(*json, where);
    out.diagnostics.append(read.diagnostics);
    out.graph = std::move(read.graph);
    out.programText = std::move(*json);
    read.program.archivePath = program->archivePath;
    read.program.modelName = program->modelName;
    read.program.layout = program->layout;
    *program = std::move(read.program);
    indexWeights(zip, *at, *program, out.diagnostics);
    const std::string samples = at->legacy ? at->root + "serialized_example_inputs.pt"
                                           : at->root + "data/sample_inputs/" + at->model + ".pt";
    if (zip.contains(samples)) {
        program->sampleInputsEntry = samples;
    }
    checkWeights(zip, *program, out.diagnostics);
    out.program = std::move(program);
    return out;
}

template <class Open>
Result<Pt2ReadResult> guarded(Open&& open)
{
    try {
        auto zip = open();
        if (!zip.ok()) {
            return zip.error();
        }
        return readArchive(*zip);
    } catch (const std::exception& e) {
        return makeError(ErrorCode::Internal, std::string("while reading the archive: ") +
                                                  e.what());
    }
}

} // namespace

bool looksLikePt2(const std::string& path)
{
    const auto head = readFileHead(path, 4); // regular files only: never blocks
    if (!head.ok() || *head != std::string_view("PK\x03\x04", 4)) {
        return false;
    }
    if (endsWith(path, ".pt2")) {
        return true;
    }
    auto zip = ZipArchive::open(path);
    Diagnostics ignored;
    return zip.ok() && findProgram(*zip, ignored).has_value();
}

Result<Pt2ReadResult> readPt2(const std::string& path)
{
    return guarded([&] { return ZipArchive::open(path); });
}

Result<Pt2ReadResult> readPt2Bytes(std::string bytes, const std::string& label)
{
    return guarded([&] { return ZipArchive::fromBytes(std::move(bytes), label); });
}

} // namespace fxs::io
