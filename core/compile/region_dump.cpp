#include "core/compile/region_dump.h"

#include "core/codegen/ir_printer.h"
#include "core/util/file_reader.h"

#include <cstdio>
#include <filesystem>
#include <system_error>

namespace fxs::compile::detail {
namespace {

std::string names(const graph::Graph& g, const std::vector<graph::NodeId>& ids)
{
    std::string s;
    for (graph::NodeId id : ids) {
        s += (s.empty() ? "" : ", ") + g.node(id).name;
    }
    return s.empty() ? "-" : s;
}

std::string scheduleReport(const PreparedRegion& p, const RegionOutcome& out)
{
    const graph::Graph& g = *p.graph;
    const RegionSchedule& s = p.schedule;
    std::string text = "region " + out.id + ": " + std::to_string(out.nodes) + " nodes, " +
                       std::to_string(s.generatedNodes) + " generated, " +
                       std::to_string(s.externNodes) + " LibTorch (extern)\n";
    text += "inputs: " + names(g, p.sig.inputs) + "\noutputs: " + names(g, p.sig.outputs) + "\n";
    for (std::size_t i = 0; i < s.steps.size(); ++i) {
        const ScheduleStep& step = s.steps[i];
        text += "\nstep " + std::to_string(i) + ": " +
                (step.generated ? "generated, entry " + std::to_string(step.program)
                                : std::string("LibTorch")) +
                "\n  nodes: " + names(g, step.nodes) + "\n  reads: " + names(g, step.inputs) +
                "\n  makes: " + names(g, step.outputs) + "\n";
    }
    if (!s.externReason.empty()) {
        text += "\nfirst LibTorch node: " + s.externReason + "\n";
    }
    text += "\ncanonical (cache key component 'schedule'): " + scheduleText(s, p.sig.order) + "\n";
    return text;
}

std::string passesReport(const RegionOutcome& out)
{
    std::string text;
    double total = 0;
    char line[160];
    for (const PassTime& pass : out.passes) {
        std::snprintf(line, sizeof line, "%-14s %10.3f ms\n", pass.name.c_str(), pass.ms);
        text += line;
        total += pass.ms;
    }
    std::snprintf(line, sizeof line, "%-14s %10.3f ms\n", "total", total);
    text += line;
    text += "state: " + std::string(regionStateName(out.state)) + "\nreason: " +
            std::string(cache::reasonName(out.reason)) + " (" +
            std::to_string(static_cast<int>(out.reason)) + ")\nheadline: " + out.headline + "\n";
    return text;
}

} // namespace

Status dumpRegion(const std::string& dir, const PreparedRegion& p, const RegionOutcome& out)
{
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        return makeError(ErrorCode::Io, "cannot create the dump directory: " + ec.message(), dir);
    }
    const std::string stem = dir + "/" + out.id;
    std::vector<std::pair<std::string, std::string>> files;
    if (p.graph && (!p.schedule.steps.empty())) {
        files.emplace_back(stem + ".schedule.txt", scheduleReport(p, out));
        std::string ir;
        for (const auto& program : p.schedule.programs) {
            ir += codegen::printLoopIr(program) + "\n";
        }
        files.emplace_back(stem + ".ir.txt", ir);
    }
    if (p.code) {
        files.emplace_back(stem + (p.code->cuda() ? ".cu" : ".cpp"), p.code->source());
    }
    files.emplace_back(stem + ".passes.txt", passesReport(out));
    for (const auto& [path, text] : files) {
        if (Status s = writeFile(path, text); !s) {
            return s;
        }
    }
    return {};
}

} // namespace fxs::compile::detail
