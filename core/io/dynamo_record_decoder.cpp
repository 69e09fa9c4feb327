#include "core/io/dynamo_record_decoder.h"

#include "core/util/diagnostics.h"
#include "core/util/strings.h"

#include "core/io/ondemand_read.h"

#include <simdjson.h>

namespace fxs::io::detail {

namespace {

namespace od = simdjson::ondemand;
using simdjson::SUCCESS;

void problem(std::vector<DecodeProblem>& problems, std::string_view key, std::string expected)
{
    problems.push_back({"unexpected value for \"" + std::string(key) + "\"", std::move(expected),
                        "something else"});
}

bool getInt(od::value v, int& out)
{
    std::int64_t i = 0;
    if (v.get_int64().get(i) != SUCCESS || i < INT32_MIN || i > INT32_MAX) {
        return false;
    }
    out = static_cast<int>(i);
    return true;
}

// A number, string or bool as text: sizes are ints, symbolic sizes strings.
bool scalarText(od::value v, std::string& out)
{
    od::json_type t{};
    if (v.type().get(t) != SUCCESS) {
        return false;
    }
    if (t == od::json_type::string) {
        return getString(v, out);
    }
    if (t == od::json_type::number) {
        out.assign(trim(v.raw_json_token()));
        return true;
    }
    return false;
}

bool readScalarList(od::value v, std::vector<std::string>& out)
{
    od::array arr;
    if (v.get_array().get(arr) != SUCCESS) {
        return false;
    }
    for (auto element : arr) {
        od::value item;
        std::string text;
        if (element.get(item) != SUCCESS || !scalarText(item, text)) {
            return false;
        }
        out.push_back(std::move(text));
    }
    return true;
}

bool readFrame(od::value v, const InternedStrings& strings, model::StackFrame& frame)
{
    od::object obj;
    if (v.get_object().get(obj) != SUCCESS) {
        return false;
    }
    for (auto field : obj) {
        std::string_view key;
        od::value value;
        if (field.unescaped_key().get(key) != SUCCESS || field.value().get(value) != SUCCESS) {
            return false;
        }
        int fileId = -1;
        if (key == "line") {
            getInt(value, frame.line);
        } else if (key == "name") {
            getString(value, frame.name);
        } else if (key == "loc") {
            getString(value, frame.code);
        } else if (key == "filename" && getInt(value, fileId)) {
            const auto it = strings.find(fileId);
            frame.file = it == strings.end() ? std::string() : it->second;
        } else if (key == "filename") {
            getString(value, frame.file); // some versions write the path itself
        }
    }
    return true;
}

bool readStack(od::value v, const InternedStrings& strings, std::vector<model::StackFrame>& out)
{
    od::array arr;
    if (v.get_array().get(arr) != SUCCESS) {
        return false;
    }
    for (auto element : arr) {
        od::value item;
        model::StackFrame frame;
        if (element.get(item) != SUCCESS || !readFrame(item, strings, frame)) {
            return false;
        }
        out.push_back(std::move(frame));
    }
    return true;
}

} // namespace

struct DynamoRecordDecoder::Impl {
    od::parser parser;
    std::string scratch;

    // Iterates the fields of json's top-level object; false when it is not one.
    template <class F>
    bool forEachField(std::string_view json, std::vector<DecodeProblem>& problems, F&& onField)
    {
        scratch.assign(json);
        scratch.reserve(json.size() + simdjson::SIMDJSON_PADDING);
        od::document doc;
        od::object obj;
        if (parser.iterate(scratch.data(), scratch.size(), scratch.capacity()).get(doc) !=
                SUCCESS ||
            doc.get_object().get(obj) != SUCCESS) {
            problems.push_back({"record metadata is not a JSON object", "a JSON object",
                                abbreviate(json)});
            return false;
        }
        for (auto field : obj) {
            std::string_view key;
            od::value v;
            if (field.unescaped_key().get(key) != SUCCESS || field.value().get(v) != SUCCESS) {
                problems.push_back({"malformed JSON in record metadata", "JSON", "an error"});
                return true;
            }
            onField(key, v);
        }
        return true;
    }
};

DynamoRecordDecoder::DynamoRecordDecoder() : m_impl(std::make_unique<Impl>()) {}
DynamoRecordDecoder::~DynamoRecordDecoder() = default;

bool DynamoRecordDecoder::decodeSymbol(std::string_view json, const InternedStrings& strings,
                                       model::SymbolRecord& out,
                                       std::vector<DecodeProblem>& problems)
{
    return m_impl->forEachField(json, problems, [&](std::string_view key, od::value v) {
        if (key == "symbol" && !getString(v, out.symbol)) {
            problem(problems, key, "a string");
        } else if (key == "val" && !scalarText(v, out.value)) {
            problem(problems, key, "a string or number");
        } else if (key == "vr") {
            scalarText(v, out.range);
        } else if (key == "source" && !getString(v, out.source)) {
            problem(problems, key, "a string");
        } else if (key == "user_stack" && !readStack(v, strings, out.userStack)) {
            problem(problems, key, "a list of stack frames");
        }
    });
}

bool DynamoRecordDecoder::decodeShapeGuard(std::string_view json, const InternedStrings& strings,
                                           model::ShapeGuardRecord& out,
                                           std::vector<DecodeProblem>& problems)
{
    return m_impl->forEachField(json, problems, [&](std::string_view key, od::value v) {
        if (key == "expr" && !getString(v, out.expr)) {
            problem(problems, key, "a string");
        } else if (key == "prefix") {
            getString(v, out.prefix);
        } else if (key == "user_stack" && !readStack(v, strings, out.userStack)) {
            problem(problems, key, "a list of stack frames");
        }
    });
}

bool DynamoRecordDecoder::decodeTensor(std::string_view json, model::TensorRecord& out,
                                       std::vector<DecodeProblem>& problems)
{
    return m_impl->forEachField(json, problems, [&](std::string_view key, od::value v) {
        bool flag = false;
        if (key == "id") {
            getInt(v, out.id);
        } else if (key == "describer_id") {
            getInt(v, out.describerId);
        } else if (key == "dtype") {
            getString(v, out.dtype);
        } else if (key == "device") {
            getString(v, out.device);
        } else if (key == "size" && !readScalarList(v, out.size)) {
            problem(problems, key, "a list of sizes");
        } else if (key == "stride" && !readScalarList(v, out.stride)) {
            problem(problems, key, "a list of strides");
        } else if (key == "requires_grad" && v.get_bool().get(flag) == SUCCESS) {
            out.requiresGrad = flag;
        } else if (key == "storage") {
            getInt(v, out.storage);
        }
    });
}

bool DynamoRecordDecoder::decodeTensorSource(std::string_view json, int& describerId, int& id,
                                             std::string& source,
                                             std::vector<DecodeProblem>& problems)
{
    return m_impl->forEachField(json, problems, [&](std::string_view key, od::value v) {
        if (key == "describer_id") {
            getInt(v, describerId);
        } else if (key == "id") {
            getInt(v, id);
        } else if (key == "source" && !getString(v, source)) {
            problem(problems, key, "a string");
        }
    });
}

bool DynamoRecordDecoder::decodeStorage(std::string_view json, int& describerId, int& id,
                                        std::int64_t& size, std::vector<DecodeProblem>& problems)
{
    return m_impl->forEachField(json, problems, [&](std::string_view key, od::value v) {
        if (key == "describer_id") {
            getInt(v, describerId);
        } else if (key == "id") {
            getInt(v, id);
        } else if (key == "size" && v.get_int64().get(size) != SUCCESS) {
            problem(problems, key, "a number of bytes");
        }
    });
}

bool DynamoRecordDecoder::decodeExportIssue(std::string_view json, const InternedStrings& strings,
                                            model::ExportIssueRecord& out,
                                            std::vector<DecodeProblem>& problems)
{
    return m_impl->forEachField(json, problems, [&](std::string_view key, od::value v) {
        if (key == "expr") {
            scalarText(v, out.expr);
        } else if (key == "result") {
            scalarText(v, out.result);
        } else if (key == "op") {
            getString(v, out.op);
        } else if (key == "reason") {
            getString(v, out.reason);
        } else if (key == "user_stack" || (key == "stack" && out.userStack.empty())) {
            out.userStack.clear(); // the user's stack wins over the full one
            if (!readStack(v, strings, out.userStack)) {
                problem(problems, key, "a list of stack frames");
            }
        }
    });
}

bool DynamoRecordDecoder::decodeLink(std::string_view json, std::string& name, std::string& url,
                                     std::vector<DecodeProblem>& problems)
{
    return m_impl->forEachField(json, problems, [&](std::string_view key, od::value v) {
        if (key == "name" && !getString(v, name)) {
            problem(problems, key, "a string");
        } else if (key == "url" && !getString(v, url)) {
            problem(problems, key, "a string");
        }
    });
}

bool DynamoRecordDecoder::decodeDynamoStart(std::string_view json, const InternedStrings& strings,
                                            model::DynamoStartRecord& out,
                                            std::vector<DecodeProblem>& problems)
{
    return m_impl->forEachField(json, problems, [&](std::string_view key, od::value v) {
        if (key == "stack" && !readStack(v, strings, out.stack)) {
            problem(problems, key, "a list of stack frames");
        }
    });
}

std::vector<std::string> parseRecompileReasons(std::string_view payload)
{
    std::vector<std::string> reasons;
    const std::string_view body = trim(payload);
    if (startsWith(body, "[")) {
        std::string padded(body);
        padded.reserve(padded.size() + simdjson::SIMDJSON_PADDING);
        od::parser parser;
        od::document doc;
        od::array arr;
        if (parser.iterate(padded.data(), padded.size(), padded.capacity()).get(doc) == SUCCESS &&
            doc.get_array().get(arr) == SUCCESS) {
            for (auto element : arr) {
                std::string_view s;
                if (element.get_string().get(s) != SUCCESS) {
                    break; // not a list of strings after all: read it as text below
                }
                reasons.emplace_back(trim(s));
            }
            if (!reasons.empty()) {
                return reasons;
            }
        }
    }
    for (const auto line : split(body, '\n')) {
        if (!trim(line).empty()) {
            reasons.emplace_back(trim(line));
        }
    }
    return reasons;
}

namespace {

// `  File "/path/x.py", line 80, in fn` → frame; false for other lines.
bool parseTracebackFrame(std::string_view line, model::StackFrame& frame)
{
    line = trim(line);
    static constexpr std::string_view kFile = "File \"";
    if (!startsWith(line, kFile)) {
        return false;
    }
    const auto close = line.find("\", line ", kFile.size());
    if (close == std::string_view::npos) {
        return false;
    }
    frame.file.assign(line.substr(kFile.size(), close - kFile.size()));
    std::string_view rest = line.substr(close + 8);
    const auto comma = rest.find(", in ");
    const auto number = parseInt(rest.substr(0, comma));
    frame.line = number ? static_cast<int>(*number) : 0;
    if (comma != std::string_view::npos) {
        frame.name.assign(trim(rest.substr(comma + 5)));
    }
    return true;
}

void parseBreakLocation(std::string_view line, model::GraphBreakRecord& out)
{
    static constexpr std::string_view kAt = "Graph break in user code at ";
    const std::string_view where = trim(line.substr(kAt.size()));
    const auto colon = where.rfind(':');
    const auto number = colon == std::string_view::npos ? std::nullopt
                                                        : parseInt(where.substr(colon + 1));
    out.atFile.assign(number ? where.substr(0, colon) : where);
    out.atLine = number ? static_cast<int>(*number) : 0;
}

// The user code traceback: frames each followed by their (indented) code line.
void parseUserTraceback(const std::vector<std::string_view>& lines, std::size_t from,
                        model::GraphBreakRecord& out)
{
    for (std::size_t i = from; i < lines.size(); ++i) {
        const std::string_view line = lines[i];
        if (trim(line).empty() || !startsWith(line, " ")) {
            break; // the traceback ends at the first blank or unindented line
        }
        model::StackFrame frame;
        if (parseTracebackFrame(line, frame)) {
            out.userStack.push_back(std::move(frame));
        } else if (!out.userStack.empty() && out.userStack.back().code.empty()) {
            out.userStack.back().code.assign(trim(line));
        }
    }
}

} // namespace

void parseGraphBreakReason(std::string_view payload, model::GraphBreakRecord& out)
{
    out.text.assign(payload);
    const auto lines = split(payload, '\n');
    static constexpr std::string_view kReason = "Graph Break Reason:";
    bool inReason = false;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string_view line = lines[i];
        const std::string_view t = trim(line);
        if (startsWith(line, "Graph break in user code at ")) {
            parseBreakLocation(line, out);
        } else if (startsWith(t, kReason)) {
            out.reason.assign(trim(t.substr(kReason.size())));
            inReason = true;
        } else if (startsWith(t, "Explanation:")) {
            out.explanation.assign(trim(t.substr(12)));
            inReason = false;
        } else if (startsWith(t, "Hint:")) {
            out.hints.emplace_back(trim(t.substr(5)));
        } else if (t == "User code traceback:") {
            // What follows (Python's traceback) repeats the message: stop here.
            parseUserTraceback(lines, i + 1, out);
            break;
        } else if (inReason && !t.empty() && endsWith(out.reason, ":")) {
            // "Encountered graph break when attempting to trace CALL: ...:" is a preamble; the
            // graph break's own name follows on its own line.
            out.reason.assign(t);
        }
    }
}

} // namespace fxs::io::detail
