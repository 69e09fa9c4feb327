#include "core/report/report.h"

#include "core/report/redact.h"
#include "core/util/strings.h"

#include <cstdio>
#include <functional>

namespace fxs::report {
namespace {

const char* kStyle = R"css(
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px 32px; color: #1a1a1a; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
table { border-collapse: collapse; width: 100%; margin: 4px 0 8px; }
th, td { text-align: left; vertical-align: top; padding: 4px 8px; border-bottom: 1px solid #eee; }
th { background: #f5f5f5; font-weight: 600; }
td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.error { color: #c0392b; font-weight: 600; }
.warning { color: #b9770e; font-weight: 600; }
.info { color: #555; }
.remedy { color: #1e6b34; }
.muted { color: #777; }
code { background: #f3f3f3; padding: 0 3px; border-radius: 3px; }
.graph { overflow: auto; border: 1px solid #ddd; max-height: 900px; }
)css";

// Free text as shown: escaped, and redacted when asked.
class Text {
public:
    explicit Text(bool redact) : m_redact(redact) {}
    std::string operator()(std::string_view text) const
    {
        return escapeMarkup(m_redact ? redactText(text) : std::string(text));
    }
    bool redact() const { return m_redact; }

private:
    bool m_redact;
};

std::string seconds(double s)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, s >= 10.0 ? "%.1f s" : "%.2f s", s);
    return buf;
}

std::string rankText(int rank) { return rank >= 0 ? std::to_string(rank) : std::string("–"); }

std::string runName(const diagnose::Diagnosis& d, int run, const Text& text)
{
    if (text.redact() || run < 0 || std::size_t(run) >= d.runs.size()) {
        return "run " + std::to_string(run + 1);
    }
    const std::string& source = d.runs[std::size_t(run)].source;
    const auto slash = source.find_last_of('/');
    return escapeMarkup(slash == std::string::npos ? source : source.substr(slash + 1));
}

std::string where(const std::string& file, int line, const Text& text)
{
    if (text.redact() || file.empty()) {
        return {};
    }
    const auto slash = file.find_last_of('/');
    const std::string name = slash == std::string::npos ? file : file.substr(slash + 1);
    return escapeMarkup(line > 0 ? name + ":" + std::to_string(line) : name);
}

// A table: a header row, then one row per item written by `row` (cells already HTML).
template <typename T>
std::string table(const std::vector<std::string>& header, const std::vector<T>& items,
                  const std::function<std::vector<std::string>(const T&)>& row)
{
    std::string out = "<table><tr>";
    for (const auto& h : header) {
        out += "<th>" + h + "</th>";
    }
    out += "</tr>\n";
    for (const T& item : items) {
        out += "<tr>";
        for (const auto& cell : row(item)) {
            out += cell.rfind("<td", 0) == 0 ? cell : "<td>" + cell + "</td>";
        }
        out += "</tr>\n";
    }
    return out + "</table>\n";
}

std::string num(const std::string& text) { return "<td class=\"num\">" + text + "</td>"; }

std::string section(const std::string& title, std::size_t count, const std::string& body)
{
    std::string out = "<h2>" + title + " <span class=\"muted\">(" + std::to_string(count) +
                      ")</span></h2>\n";
    return out + (count == 0 ? "<p class=\"muted\">None.</p>\n" : body);
}

std::string findings(const diagnose::Diagnosis& d, const Text& text)
{
    const auto row = [&](const diagnose::Finding& f) -> std::vector<std::string> {
        const std::string sev(diagnose::severityName(f.severity));
        std::string what = text(f.text);
        if (f.remedy) {
            what += "<br><span class=\"remedy\">\u2192 " + text(f.remedy->text) + "</span>";
        }
        return {"<td class=\"" + sev + "\">" + sev + "</td>", num(seconds(f.costS)),
                runName(d, f.link.run, text), what, text(f.where)};
    };
    return section("Findings, largest cost first", d.findings.size(),
                   table<diagnose::Finding>({"Severity", "Cost", "Run", "Finding and what to do",
                                             "Where"},
                                            d.findings, row));
}

std::string frames(const diagnose::Diagnosis& d, const Text& text)
{
    const auto row = [&](const diagnose::Frame& f) -> std::vector<std::string> {
        const auto& p = f.phases;
        return {runName(d, f.run, text), rankText(f.rank),
                std::to_string(f.frameId) + " " + text(f.function),
                std::to_string(f.compileIds.size()), num(seconds(f.totalS)),
                num(seconds(p.dynamoS)), num(seconds(p.aotS)), num(seconds(p.inductorS)),
                num(seconds(p.cacheS)), where(f.file, f.line, text)};
    };
    return section("Cold start by frame", d.frames.size(),
                   table<diagnose::Frame>({"Run", "Rank", "Frame", "Compiles", "Total", "Dynamo",
                                           "AOT", "Inductor", "Cache", "Source"},
                                          d.frames, row));
}

std::string recompiles(const diagnose::Diagnosis& d, const Text& text)
{
    const auto row = [&](const diagnose::Recompile& r) -> std::vector<std::string> {
        std::string code;
        if (!text.redact() && !r.sourceCode.empty()) {
            code = "<br><code>" + escapeMarkup(r.sourceCode) + "</code>";
        }
        return {runName(d, r.run, text), rankText(r.rank), r.compileId.toString(),
                text(r.reason) + code, text(r.action), num(seconds(r.costS)),
                where(r.sourceFile, r.sourceLine, text)};
    };
    return section("Recompiles", d.recompiles.size(),
                   table<diagnose::Recompile>({"Run", "Rank", "Compile", "Why", "Then", "Cost",
                                               "Source"},
                                              d.recompiles, row));
}

std::string graphBreaks(const diagnose::Diagnosis& d, const Text& text)
{
    const auto row = [&](const diagnose::GraphBreak& b) -> std::vector<std::string> {
        std::string what = text(b.reason) + (b.gbId.empty() ? "" : " [" + text(b.gbId) + "]");
        if (!text.redact() && !b.userFrame.code.empty()) {
            what += "<br><code>" + escapeMarkup(b.userFrame.code) + "</code>";
        }
        for (const auto& hint : b.hints) {
            what += "<br><span class=\"remedy\">\u2192 " + text(hint) + "</span>";
        }
        return {what, std::to_string(b.count), num(seconds(b.costS)),
                where(b.userFrame.file, b.userFrame.line, text)};
    };
    return section("Graph breaks", d.graphBreaks.size(),
                   table<diagnose::GraphBreak>({"Break and hints", "Logged", "Cost", "Source"},
                                               d.graphBreaks, row));
}

std::string failures(const diagnose::Diagnosis& d, const Text& text)
{
    const auto row = [&](const diagnose::Failure& f) -> std::vector<std::string> {
        // An exception's message may quote anything: withheld when redacting.
        return {runName(d, f.run, text), rankText(f.rank), f.compileId.toString(),
                text(f.frame), text(f.failType),
                text.redact() ? std::string("<span class=\"muted\">withheld</span>")
                              : text(f.reason),
                where(f.userFrame.file, f.userFrame.line, text)};
    };
    return section("Failed compiles", d.failures.size(),
                   table<diagnose::Failure>({"Run", "Rank", "Compile", "Frame", "Type", "Reason",
                                             "Source"},
                                            d.failures, row));
}

std::string cache(const diagnose::Diagnosis& d, const Text& text)
{
    const auto row = [&](const diagnose::CacheRow& c) -> std::vector<std::string> {
        return {runName(d, c.run, text), rankText(c.rank), c.compileId.toString(),
                std::string(model::cacheKindName(c.cache)),
                std::string(diagnose::cacheClassName(c.cls)), num(seconds(c.costS)),
                text(c.headline)};
    };
    return section("Cache lookups", d.cache.size(),
                   table<diagnose::CacheRow>({"Run", "Rank", "Compile", "Cache", "Class", "Cost",
                                              "Explanation"},
                                             d.cache, row));
}

std::string divergence(const diagnose::Diagnosis& d, const Text& text)
{
    const auto row = [&](const diagnose::Divergence& v) -> std::vector<std::string> {
        std::string detail;
        for (const auto& [rank, what] : v.detail) {
            detail += (detail.empty() ? "" : "<br>") + ("rank " + std::to_string(rank) + ": ") +
                      text(what);
        }
        return {runName(d, v.run, text), v.compileId.toString(), text(v.what), detail};
    };
    return section("Rank divergence", d.divergence.size(),
                   table<diagnose::Divergence>({"Run", "Compile", "What", "Per rank"},
                                               d.divergence, row));
}

std::string header(const diagnose::Diagnosis& d, const Text& text)
{
    std::string out = "<h1>fxscope report</h1>\n<p class=\"muted\">";
    for (std::size_t i = 0; i < d.runs.size(); ++i) {
        const auto& ranks = d.runs[i].ranks;
        out += (i ? "; " : "") + runName(d, int(i), text);
        if (!ranks.empty()) {
            out += " (" + std::to_string(ranks.size()) + (ranks.size() == 1 ? " rank)" : " ranks)");
        }
    }
    out += text.redact() ? " \u2014 redacted: no source text, file paths or constant values"
                         : "";
    return out + "</p>\n";
}

} // namespace

std::string renderReport(const ReportInput& in, const ReportOptions& options)
{
    const Text text(options.redact);
    const diagnose::Diagnosis empty;
    const diagnose::Diagnosis& d = in.diagnosis ? *in.diagnosis : empty;
    std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                      "<title>fxscope report</title>\n<style>" +
                      std::string(kStyle) + "</style></head>\n<body>\n";
    out += header(d, text);
    out += findings(d, text);
    out += failures(d, text);
    out += recompiles(d, text);
    out += graphBreaks(d, text);
    out += cache(d, text);
    out += divergence(d, text);
    out += frames(d, text);
    if (!in.graphSvg.empty()) {
        out += "<h2>" + text(in.graphCaption) + "</h2>\n<div class=\"graph\">" +
               (text.redact() ? redactMarkupText(in.graphSvg) : in.graphSvg) + "</div>\n";
    }
    out += "<p class=\"muted\">Written by fxscope " + escapeMarkup(in.version) +
           ". Self-contained: no script, nothing loaded from elsewhere.</p>\n";
    return out + "</body></html>\n";
}

} // namespace fxs::report
