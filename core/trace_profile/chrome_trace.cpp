#include "core/trace_profile/chrome_trace.h"
#include "core/util/json_parse.h"
#include "core/util/json_text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

namespace fxs::profile {

using nlohmann::json;

std::string writeChromeTrace(const std::vector<TraceEvent>& events)
{
    json list = json::array();
    for (const auto& e : events) {
        json args = json::object();
        for (const auto& [k, v] : e.args) {
            args[k] = v;
        }
        list.push_back({{"name", e.name},
                        {"cat", e.category},
                        {"ph", "X"},
                        {"ts", e.tsUs},
                        {"dur", e.durUs},
                        {"pid", e.pid},
                        {"tid", e.tid},
                        {"args", std::move(args)}});
    }
    return dumpJson(json{{"traceEvents", std::move(list)}, {"displayTimeUnit", "ms"}}, 1);
}

namespace {

Error traceError(const std::string& message, std::size_t index)
{
    return makeError(ErrorCode::Parse, message, "traceEvents[" + std::to_string(index) + "]");
}

struct Span {
    double start;
    double end;
};

// X events on one thread must nest: sorted by start (longer first), each lies inside the
// innermost open span or after it.
Status checkNesting(std::vector<Span> spans, std::int64_t pid, std::int64_t tid)
{
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
        return a.start < b.start || (a.start == b.start && a.end > b.end);
    });
    std::vector<Span> open;
    for (const auto& s : spans) {
        while (!open.empty() && open.back().end <= s.start) {
            open.pop_back();
        }
        if (!open.empty() && s.end > open.back().end + 1e-6) {
            return makeError(ErrorCode::Parse,
                             "complete events overlap without nesting on pid " +
                                 std::to_string(pid) + " tid " + std::to_string(tid));
        }
        open.push_back(s);
    }
    return {};
}

} // namespace

Status validateChromeTrace(const std::string& text)
{
    const auto parsed = parseJson(text);
    if (!parsed.ok()) {
        return makeError(ErrorCode::Parse, "not JSON: " + parsed.error().message);
    }
    const json& doc = *parsed;
    const json* events = &doc;
    if (doc.is_object()) {
        if (!doc.contains("traceEvents") || !doc["traceEvents"].is_array()) {
            return makeError(ErrorCode::Parse, "object without a traceEvents array");
        }
        events = &doc["traceEvents"];
    } else if (!doc.is_array()) {
        return makeError(ErrorCode::Parse, "neither an object nor an array");
    }
    using Thread = std::pair<std::int64_t, std::int64_t>;
    std::map<Thread, std::vector<std::string>> stacks;
    std::map<Thread, std::vector<Span>> spans;
    for (std::size_t i = 0; i < events->size(); ++i) {
        const json& e = (*events)[i];
        if (!e.is_object() || !e.contains("name") || !e.contains("ph") || !e.contains("pid") ||
            !e.contains("tid") || !e["ph"].is_string() || !e["pid"].is_number_integer() ||
            !e["tid"].is_number_integer()) {
            return traceError("event lacks name, ph, pid or tid (integers)", i);
        }
        const std::string ph = e["ph"];
        if (ph != "M" && (!e.contains("ts") || !e["ts"].is_number())) {
            return traceError("event lacks a numeric ts (microseconds)", i);
        }
        const Thread thread{e["pid"].get<std::int64_t>(), e["tid"].get<std::int64_t>()};
        const std::string name = e["name"].is_string() ? e["name"].get<std::string>() : "";
        if (ph == "B") {
            stacks[thread].push_back(name);
        } else if (ph == "E") {
            auto& stack = stacks[thread];
            if (stack.empty() || stack.back() != name) {
                return traceError("end event '" + name + "' does not close the innermost begin", i);
            }
            stack.pop_back();
        } else if (ph == "X") {
            if (!e.contains("dur") || !e["dur"].is_number() || e["dur"].get<double>() < 0) {
                return traceError("complete event without a non-negative dur", i);
            }
            const double ts = e["ts"].get<double>();
            spans[thread].push_back({ts, ts + e["dur"].get<double>()});
        }
    }
    for (const auto& [thread, stack] : stacks) {
        if (!stack.empty()) {
            return makeError(ErrorCode::Parse, "begin event '" + stack.back() + "' is never ended");
        }
    }
    for (auto& [thread, list] : spans) {
        if (auto s = checkNesting(std::move(list), thread.first, thread.second); !s) {
            return s;
        }
    }
    return {};
}

} // namespace fxs::profile
