#include "app/cli/trace_runs.h"

#include "core/io/torch_trace_reader.h"

#include <iostream>

namespace fxs::cli {
namespace {

// The first error, else the first warning: what a reader of stderr should see first.
const Diagnostic* firstProblem(const Diagnostics& diagnostics)
{
    const Diagnostic* warning = nullptr;
    for (const auto& d : diagnostics.items()) {
        if (d.severity == Severity::Error) {
            return &d;
        }
        if (d.severity == Severity::Warning && !warning) {
            warning = &d;
        }
    }
    return warning;
}

} // namespace

bool readTraceRuns(const std::string& command, const std::vector<std::string>& paths,
                   std::vector<model::Run>& runs, Diagnostics& problems)
{
    io::TraceReadOptions options;
    options.parseGraphs = false;
    for (const auto& path : paths) {
        auto results = io::readTorchTraceRuns(path, options);
        Diagnostics all;
        bool readSomething = false;
        for (auto& r : results) {
            all.append(r.diagnostics);
            readSomething = readSomething || r.readSomething;
        }
        problems.append(all);
        const Diagnostic* first = firstProblem(all);
        if (!readSomething) {
            std::cerr << "fxscope-cli " << command << ": cannot read run " << path << ": "
                      << (first ? first->toString() : std::string("no TORCH_TRACE envelope found"))
                      << "\n";
            return false;
        }
        if (const auto errors = all.errorCount(); errors > 0 && first) {
            // Read in part (a log cut short, bad lines): kept, and said on stderr.
            std::cerr << "fxscope-cli " << command << ": " << path << ": " << errors
                      << (errors == 1 ? " problem" : " problems") << " while reading, first: "
                      << first->toString() << "\n";
        }
        for (auto& r : results) {
            if (r.readSomething) {
                runs.push_back(std::move(r.run));
            }
        }
    }
    return true;
}

Result<diagnose::Diagnosis> diagnoseRuns(const std::vector<model::Run>& runs)
{
    std::vector<const model::Run*> pointers;
    for (const auto& r : runs) {
        pointers.push_back(&r);
    }
    return diagnose::diagnose(pointers);
}

} // namespace fxs::cli
