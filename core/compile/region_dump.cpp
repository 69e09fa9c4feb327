#include "core/compile/region_dump.h"

#include "core/codegen/ir_printer.h"
#include "core/codegen/source_text.h"
#include "core/util/digest.h"
#include "core/util/unique_fd.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace fxs::compile::detail {
namespace {

// Node names as the dump shows them: escaped (source_text.h), so a name cannot forge lines of
// the report or send control sequences to a terminal that shows it.
std::string names(const graph::Graph& g, const std::vector<graph::NodeId>& ids)
{
    std::string s;
    for (graph::NodeId id : ids) {
        s += (s.empty() ? "" : ", ") + codegen::source::escapeText(g.node(id).name);
    }
    return s.empty() ? "-" : s;
}

// fxscope's messages (which may quote a node name) as one line of the dump: printable ASCII as
// it is ("the kernel's index space"), every other byte escaped, so nothing forges a line.
std::string readable(std::string_view text)
{
    std::string s;
    for (const char& c : text) {
        if (c >= 0x20 && c < 0x7f) {
            s += c;
        } else {
            s += codegen::source::escapeText(std::string_view(&c, 1));
        }
    }
    return s;
}

std::string scheduleReport(const PreparedRegion& p, const RegionOutcome& out)
{
    const graph::Graph& g = *p.graph;
    const RegionSchedule& s = p.schedule;
    std::string text = "region " + codegen::source::escapeText(out.id) + ": " +
                       std::to_string(out.nodes) + " nodes, " + std::to_string(s.generatedNodes) +
                       " generated, " + std::to_string(s.externNodes) + " LibTorch (extern)\n";
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
        text += "\nfirst LibTorch node: " + readable(s.externReason) + "\n";
    }
    text += s.cuts.empty() ? "" : "\n";
    for (const auto& [id, why] : s.cuts) {
        text += "new kernel at " + names(g, {id}) + ": " + readable(why) + "\n";
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

bool safeStemChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == '-';
}

Status ioError(const std::string& what, int err, const std::string& where)
{
    return makeError(ErrorCode::Io, what + ": " + std::strerror(err), where);
}

// Writes text to a temporary file created exclusively in dirFd (no symlink followed), then
// renames it over name: whatever name was (a symlink, a FIFO, a hard link) is replaced.
Status writeInDir(int dirFd, const std::string& dir, const std::string& name,
                  std::string_view text)
{
    static std::atomic<unsigned> counter{0};
    const std::string tmp = "." + name + ".tmp" + std::to_string(::getpid()) + "-" +
                            std::to_string(counter.fetch_add(1));
    const UniqueFd f{::openat(dirFd, tmp.c_str(),
                  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)};
    if (f.get() < 0) {
        return ioError("cannot write a dump file", errno, dir + "/" + tmp);
    }
    for (std::size_t done = 0; done < text.size();) {
        const ssize_t n = ::write(f.get(), text.data() + done, text.size() - done);
        if (n <= 0) {
            const int err = n < 0 ? errno : ENOSPC;
            ::unlinkat(dirFd, tmp.c_str(), 0);
            return ioError("cannot write a dump file", err, dir + "/" + tmp);
        }
        done += std::size_t(n);
    }
    if (::renameat(dirFd, tmp.c_str(), dirFd, name.c_str()) != 0) {
        const int err = errno;
        ::unlinkat(dirFd, tmp.c_str(), 0);
        return ioError("cannot write a dump file", err, dir + "/" + name);
    }
    return {};
}

} // namespace

std::string dumpStem(std::string_view id)
{
    const bool plain = !id.empty() && id.size() <= 64 && id[0] != '.' && id[0] != '-' &&
                       std::all_of(id.begin(), id.end(), safeStemChar);
    if (plain) {
        return std::string(id);
    }
    std::string s;
    for (std::size_t i = 0; i < id.size() && s.size() < 40; ++i) {
        s += safeStemChar(id[i]) ? id[i] : '_';
    }
    if (s.empty()) {
        s = "region";
    } else if (s[0] == '.' || s[0] == '-') {
        s[0] = '_';
    }
    return s + "-" + toHex(sha256(id)).substr(0, 12);
}

Status dumpRegion(const std::string& dir, const PreparedRegion& p, const RegionOutcome& out)
{
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        return makeError(ErrorCode::Io, "cannot create the dump directory: " + ec.message(), dir);
    }
    const UniqueFd dirFd{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    if (dirFd.get() < 0) {
        return ioError("cannot open the dump directory", errno, dir);
    }
    const std::string stem = dumpStem(out.id);
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
    for (const auto& [name, text] : files) {
        if (Status s = writeInDir(dirFd.get(), dir, name, text); !s) {
            return s;
        }
    }
    return {};
}

} // namespace fxs::compile::detail
