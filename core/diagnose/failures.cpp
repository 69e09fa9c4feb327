#include "core/diagnose/failures.h"

#include "core/diagnose/compile_metrics.h"
#include "core/util/strings.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace fxs::diagnose {

namespace {

using Key = std::tuple<int, model::CompileId>; // (rank, compile id without attempt)

UserFrame innermost(const std::vector<model::StackFrame>& stack)
{
    if (stack.empty()) {
        return {};
    }
    return {stack.back().file, stack.back().line, stack.back().code};
}

// Where Dynamo started on the compile's frame: the user's call, when no fail_user_frame is logged.
UserFrame startFrame(const model::Run& run, int rank, const model::CompileId& id)
{
    for (const auto& d : run.dynamoStarts) {
        if (d.origin.rank == rank && d.origin.compileId.withoutAttempt() == id) {
            return innermost(d.stack);
        }
    }
    return {};
}

Failure& failureOf(std::map<Key, Failure>& failures, int runIndex, int rank,
                   const model::CompileId& id)
{
    Failure& f = failures[{rank, id}];
    f.run = runIndex;
    f.rank = rank;
    f.compileId = id;
    return f;
}

bool isFrameLine(std::string_view t)
{
    return startsWith(t, "File \"") || startsWith(t, "^") || startsWith(t, "~");
}

} // namespace

RaisedException lastException(std::string_view traceback)
{
    const auto lines = split(traceback, '\n');
    // The exception starts at the first unindented line after the last frame of the traceback.
    std::size_t start = lines.size();
    for (std::size_t i = lines.size(); i-- > 0;) {
        const std::string_view t = trim(lines[i]);
        if (isFrameLine(t) || (startsWith(lines[i], " ") && !t.empty())) {
            break;
        }
        if (!t.empty() && !startsWith(t, "Set TORCH_LOGS") && !startsWith(t, "You can suppress")) {
            start = i;
        }
    }
    RaisedException e;
    if (start == lines.size()) {
        return e;
    }
    const std::string_view head = trim(lines[start]);
    const auto colon = head.find(':');
    std::string_view type = head.substr(0, colon);
    if (const auto dot = type.rfind('.'); dot != std::string_view::npos) {
        type.remove_prefix(dot + 1);
    }
    e.type.assign(trim(type));
    std::string message(colon == std::string_view::npos ? "" : trim(head.substr(colon + 1)));
    for (std::size_t i = start + 1; i < lines.size() && !trim(lines[i]).empty(); ++i) {
        message += (message.empty() ? "" : "\n") + std::string(trim(lines[i]));
    }
    e.message = std::move(message);
    return e;
}

void addFailures(const model::Run& run, int runIndex, const CompileTimes& times,
                 std::vector<Failure>& out)
{
    std::map<Key, Failure> failures;
    std::map<Key, std::string> frames; // co_name of every compile, failed or not
    for (const auto& m : readCompileMetrics(run)) {
        if (!m.backward && !m.function.empty()) {
            frames[{m.rank, m.compileId}] = m.function;
        }
        if (m.failType.empty()) {
            continue;
        }
        Failure& f = failureOf(failures, runIndex, m.rank, m.compileId);
        f.failType = m.failType;
        f.reason = m.failReason;
        if (!m.failUserFile.empty()) {
            f.userFrame = {m.failUserFile, m.failUserLine, {}};
        }
    }
    for (const auto& t : run.texts) {
        if (t.kind != "dynamo_error") {
            continue;
        }
        Failure& f = failureOf(failures, runIndex, t.rank, t.compileId.withoutAttempt());
        f.error = t.text;
        // The app opens the compile's graph; file:line is where the traceback was logged.
        f.link = {Link::Kind::Compile, runIndex, -1, t.rank, t.compileId, t.file, t.line};
        const RaisedException e = lastException(t.text);
        if (f.failType.empty()) {
            f.failType = e.type;
        }
        if (f.reason.empty()) {
            f.reason = e.message;
        }
    }
    for (auto& [key, f] : failures) {
        const auto name = frames.find(key);
        f.frame = name == frames.end() ? std::string() : name->second;
        if (f.userFrame.file.empty()) {
            f.userFrame = startFrame(run, f.rank, f.compileId);
        }
        f.costS = compileSeconds(times, f.rank, f.compileId);
        if (f.link.kind == Link::Kind::None) {
            f.link = {Link::Kind::Compile, runIndex, -1, f.rank, f.compileId, {}, 0};
        }
        out.push_back(std::move(f));
    }
}

namespace {

ExportFailure exportFailureOf(const model::RecordOrigin& origin, int runIndex)
{
    ExportFailure f;
    f.run = runIndex;
    f.rank = origin.rank;
    f.compileId = origin.compileId;
    return f;
}

void addExportIssue(const model::ExportIssueRecord& r, int runIndex,
                    std::vector<ExportFailure>& out)
{
    ExportFailure f = exportFailureOf(r.origin, runIndex);
    f.kind = r.kind;
    f.userFrame = innermost(r.userStack);
    if (r.kind == "propagate_real_tensors_provenance") {
        f.failureType = "data_dependent";
        f.expr = r.expr;
        f.reason = "could not tell whether " + r.expr + " always holds; specialised to " +
                   r.result + " and asserted";
    } else if (r.kind == "missing_fake_kernel") {
        f.failureType = "missing_fake_kernel";
        f.op = r.op;
        f.reason = "torch.ops." + r.op + " has no fake kernel";
    } else {
        f.failureType = "mismatched_fake_kernel";
        f.op = r.op;
        f.reason = "torch.ops." + r.op + " has a fake kernel that disagrees with the real one: " +
                   r.reason;
    }
    out.push_back(std::move(f));
}

} // namespace

void addExportFailures(const model::Run& run, int runIndex, std::vector<ExportFailure>& out)
{
    // Both kinds in log order: by file, then line.
    std::vector<std::pair<std::tuple<std::string, int>, ExportFailure>> found;
    for (const auto& g : run.shapeGuards) {
        if (g.kind != "guard_added" || g.prefix != "eval") {
            continue;
        }
        ExportFailure f = exportFailureOf(g.origin, runIndex);
        f.kind = g.kind;
        f.failureType = "guard_evaluated";
        f.expr = g.expr;
        f.reason = "torch.export evaluated the guard " + g.expr +
                   "; it may have caused a constraint violation";
        f.userFrame = innermost(g.userStack);
        found.push_back({{g.origin.file, g.origin.line}, std::move(f)});
    }
    for (const auto& r : run.exportIssues) {
        std::vector<ExportFailure> one;
        addExportIssue(r, runIndex, one);
        found.push_back({{r.origin.file, r.origin.line}, std::move(one.front())});
    }
    std::stable_sort(found.begin(), found.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [where, f] : found) {
        out.push_back(std::move(f));
    }
}

} // namespace fxs::diagnose
