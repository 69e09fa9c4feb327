#include "core/io/payload_decoder.h"

#include "core/io/cache_event_parser.h"
#include "core/util/diagnostics.h"

#include "core/io/ondemand_read.h"

#include <simdjson.h>

namespace fxs::io::detail {

namespace {

namespace od = simdjson::ondemand;
using simdjson::SUCCESS;

std::string typeName(od::value v)
{
    od::json_type t{};
    if (v.type().get(t) != SUCCESS) {
        return "invalid JSON";
    }
    switch (t) {
    case od::json_type::array: return "an array";
    case od::json_type::object: return "an object";
    case od::json_type::number: return "a number";
    case od::json_type::string: return "a string";
    case od::json_type::boolean: return "a boolean";
    case od::json_type::null: return "null";
    }
    return "?";
}

void problem(std::vector<DecodeProblem>& problems, std::string_view key, std::string expected,
             std::string found)
{
    problems.push_back({"unexpected value for \"" + std::string(key) + "\"", std::move(expected),
                        std::move(found)});
}

bool isNull(od::value v)
{
    bool null = false;
    return v.is_null().get(null) == SUCCESS && null;
}

// Integers logged as ints, or as floats by some versions.
bool getInt64(od::value v, std::int64_t& out)
{
    if (v.get_int64().get(out) == SUCCESS) {
        return true;
    }
    double d = 0;
    if (v.get_double().get(d) == SUCCESS && d > -9.2e18 && d < 9.2e18) {
        out = static_cast<std::int64_t>(d);
        return true;
    }
    return false;
}

void readComponents(od::value v, model::CacheLookup& out, std::vector<DecodeProblem>& problems)
{
    od::array arr;
    if (v.get_array().get(arr) != SUCCESS) {
        problem(problems, "components", "a list of strings", typeName(v));
        return;
    }
    std::size_t index = 0;
    for (auto element : arr) {
        od::value item;
        std::string_view text;
        if (element.get(item) != SUCCESS || item.get_string().get(text) != SUCCESS) {
            problem(problems, "components", "a string at index " + std::to_string(index),
                    "something else");
            return; // the array iteration cannot go on safely after an error
        }
        model::KeyComponent c;
        if (!parseKeyComponent(text, c)) {
            problems.push_back({"key component " + std::to_string(index) +
                                    " is not \"[digest] name: value\"",
                                "[digest] name: value", abbreviate(text)});
        }
        out.components.push_back(std::move(c));
        ++index;
    }
}

template <class T>
void readOptional(od::value v, std::string_view key, std::optional<T>& out,
                  std::vector<DecodeProblem>& problems)
{
    if (isNull(v)) {
        return;
    }
    if constexpr (std::is_same_v<T, double>) {
        double d = 0;
        if (v.get_double().get(d) == SUCCESS) {
            out = d;
            return;
        }
    } else {
        std::int64_t i = 0;
        if (getInt64(v, i)) {
            out = i;
            return;
        }
    }
    problem(problems, key, "a number", typeName(v));
}

void readStringField(od::value v, std::string_view key, std::string& out,
                     std::vector<DecodeProblem>& problems)
{
    if (!isNull(v) && !getString(v, out)) {
        problem(problems, key, "a string", typeName(v));
    }
}

void readKey(od::value v, model::CacheLookup& out, std::vector<DecodeProblem>& problems)
{
    std::string key;
    if (isNull(v)) {
        out.key.reset();
    } else if (getString(v, key)) {
        out.key = std::move(key);
    } else {
        problem(problems, "key", "a string or null", typeName(v));
    }
}

void readState(od::value v, model::CacheLookup& out, std::vector<DecodeProblem>& problems)
{
    std::string text;
    if (!getString(v, text)) {
        problem(problems, "cache_state", "a string", typeName(v));
    } else if (const auto state = cacheStateFromText(text)) {
        out.state = *state;
    } else {
        problem(problems, "cache_state", "hit, miss, bypass or disabled", abbreviate(text));
    }
}

void readCompileId(od::value v, model::CacheLookup& out, std::vector<DecodeProblem>& problems)
{
    std::string text;
    if (isNull(v)) {
        return;
    }
    if (!getString(v, text)) {
        problem(problems, "compile_id", "a string such as \"0/0\"", typeName(v));
        return;
    }
    if (text == "None") {
        return; // Python's None as text: events outside any compile (AOTInductor logs them)
    }
    const auto id = model::CompileId::parse(text);
    if (!id) {
        problem(problems, "compile_id", "a compile id such as \"0/0\"", abbreviate(text));
    } else if (!out.compileId.valid()) {
        out.compileId = *id; // the envelope's ids win when both are present
    }
}

// One key of a cache event object; unknown keys (triton_bundler_meta, traceback) are skipped.
void readCacheField(std::string_view key, od::value v, model::CacheLookup& out,
                    std::vector<DecodeProblem>& problems)
{
    bool flag = false;
    if (key == "key") {
        readKey(v, out, problems);
    } else if (key == "components") {
        readComponents(v, out, problems);
    } else if (key == "cache_state") {
        readState(v, out, problems);
    } else if (key == "cache_status_detailed") {
        readStringField(v, key, out.detailedStatus, problems);
    } else if (key == "cache_status_guard_expr" || key == "guard_expr" || key == "guards_expr" ||
               key == "guard_expression") {
        // cache_status_guard_expr: the guards of the entry that missed (PyTorch 2.11,
        // GuardedCache.find_guarded_entry in torch/_inductor/codecache.py).
        readStringField(v, key, out.guardExpression, problems);
    } else if (key == "cache_bypass_reason") {
        readStringField(v, key, out.bypassReason, problems);
    } else if (key == "cache_bypass_exception_type") {
        readStringField(v, key, out.bypassExceptionType, problems);
    } else if (key == "cache_bypass_hard_exception") {
        if (v.get_bool().get(flag) == SUCCESS) {
            out.bypassHardException = flag;
        } else if (!isNull(v)) {
            problem(problems, key, "true or false", typeName(v));
        }
    } else if (key == "time_taken_ns") {
        readOptional(v, key, out.timeTakenNs, problems);
    } else if (key == "time_saved_ns") {
        readOptional(v, key, out.timeSavedNs, problems);
    } else if (key == "cache_event_time") {
        readOptional(v, key, out.cacheEventTime, problems);
    } else if (key == "time_saved_ms") {
        readOptional(v, key, out.timeSavedMs, problems);
    } else if (key == "forward_time_saved_ms") {
        readOptional(v, key, out.forwardTimeSavedMs, problems);
    } else if (key == "backward_time_saved_ms") {
        readOptional(v, key, out.backwardTimeSavedMs, problems);
    } else if (key == "compile_id") {
        readCompileId(v, out, problems);
    }
}

bool readCacheObject(od::document& doc, model::CacheLookup& out,
                     std::vector<DecodeProblem>& problems)
{
    od::object obj;
    if (doc.get_object().get(obj) != SUCCESS) {
        problems.push_back({"cache event payload is not a JSON object", "a JSON object",
                            "something else"});
        return false;
    }
    for (auto field : obj) {
        std::string_view key;
        od::value v;
        if (field.unescaped_key().get(key) != SUCCESS || field.value().get(v) != SUCCESS) {
            problems.push_back({"malformed JSON in cache event payload", "JSON", "an error"});
            return true;
        }
        readCacheField(key, v, out, problems);
    }
    return true;
}

} // namespace

struct PayloadDecoder::Impl {
    od::parser parser;
    std::string scratch;

    // Iterates text held in a buffer with SIMDJSON_PADDING spare capacity after it.
    bool iterate(const std::string& buffer, std::string_view text, od::document& doc)
    {
        const std::size_t capacity =
            buffer.capacity() - static_cast<std::size_t>(text.data() - buffer.data());
        if (capacity < text.size() + simdjson::SIMDJSON_PADDING) {
            scratch.assign(text);
            scratch.reserve(text.size() + simdjson::SIMDJSON_PADDING);
            return parser.iterate(scratch.data(), scratch.size(), scratch.capacity()).get(doc) ==
                   SUCCESS;
        }
        return parser.iterate(text.data(), text.size(), capacity).get(doc) == SUCCESS;
    }
};

PayloadDecoder::PayloadDecoder() : m_impl(std::make_unique<Impl>()) {}
PayloadDecoder::~PayloadDecoder() = default;

bool PayloadDecoder::decodeCacheLookup(const std::string& buffer, std::string_view text,
                                       model::CacheLookup& out,
                                       std::vector<DecodeProblem>& problems)
{
    od::document doc;
    if (!m_impl->iterate(buffer, text, doc)) {
        problems.push_back({"cache event payload is not JSON", "a JSON object", abbreviate(text)});
        return false;
    }
    return readCacheObject(doc, out, problems);
}

bool PayloadDecoder::decodeCacheLookupFromArgs(std::string_view argsJson, model::CacheLookup& out,
                                               std::vector<DecodeProblem>& problems)
{
    m_impl->scratch.assign(argsJson);
    m_impl->scratch.reserve(argsJson.size() + simdjson::SIMDJSON_PADDING);
    od::document doc;
    if (m_impl->parser.iterate(m_impl->scratch.data(), m_impl->scratch.size(),
                               m_impl->scratch.capacity())
            .get(doc) != SUCCESS) {
        return false;
    }
    return readCacheObject(doc, out, problems);
}

namespace {

void readArgs(od::value v, model::ChromiumEvent& out, std::vector<DecodeProblem>& problems)
{
    od::object obj;
    std::string_view raw;
    if (v.get_object().get(obj) != SUCCESS || obj.raw_json().get(raw) != SUCCESS) {
        problem(problems, "args", "an object", "something else");
        return;
    }
    out.argsJson.assign(raw);
}

void readEventField(std::string_view key, od::value v, model::ChromiumEvent& out,
                    std::vector<DecodeProblem>& problems)
{
    std::optional<double> number;
    std::optional<std::int64_t> integer;
    if (key == "name") {
        readStringField(v, key, out.name, problems);
    } else if (key == "ph") {
        readStringField(v, key, out.phase, problems);
    } else if (key == "cat") {
        readStringField(v, key, out.category, problems);
    } else if (key == "ts" || key == "dur") {
        readOptional(v, key, number, problems);
        (key == "ts" ? out.tsUs : out.durUs) = number.value_or(0.0);
    } else if (key == "pid" || key == "tid") {
        readOptional(v, key, integer, problems);
        (key == "pid" ? out.pid : out.tid) = integer.value_or(0);
    } else if (key == "args") {
        readArgs(v, out, problems);
    }
}

// args.compile_id of an event, read from its args JSON text.
void readArgsCompileId(od::parser& parser, std::string& scratch, model::ChromiumEvent& out)
{
    scratch.assign(out.argsJson);
    scratch.reserve(scratch.size() + simdjson::SIMDJSON_PADDING);
    od::document doc;
    std::string_view text;
    if (parser.iterate(scratch.data(), scratch.size(), scratch.capacity()).get(doc) != SUCCESS ||
        doc.find_field_unordered("compile_id").get_string().get(text) != SUCCESS) {
        return;
    }
    if (const auto id = model::CompileId::parse(text)) {
        out.compileId = *id;
    }
}

} // namespace

bool PayloadDecoder::decodeChromiumEvent(const std::string& buffer, std::string_view text,
                                         model::ChromiumEvent& out,
                                         std::vector<DecodeProblem>& problems)
{
    od::document doc;
    od::object obj;
    if (!m_impl->iterate(buffer, text, doc) || doc.get_object().get(obj) != SUCCESS) {
        problems.push_back({"chromium event payload is not a JSON object", "a JSON object",
                            abbreviate(text)});
        return false;
    }
    for (auto field : obj) {
        std::string_view key;
        od::value v;
        if (field.unescaped_key().get(key) != SUCCESS || field.value().get(v) != SUCCESS) {
            problems.push_back({"malformed JSON in chromium event payload", "JSON", "an error"});
            return true;
        }
        readEventField(key, v, out, problems);
    }
    if (!out.argsJson.empty()) {
        readArgsCompileId(m_impl->parser, m_impl->scratch, out);
    }
    return true;
}

} // namespace fxs::io::detail
