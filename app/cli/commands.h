// Registration of fxscope-cli subcommands. Each add*Command adds one subcommand to app and
// stores its exit status in exitCode when it runs. One .cpp per subcommand.
#pragma once

#include "core/util/file_writer.h"

#include <CLI/CLI.hpp>

#include <string>

namespace fxs::cli {

// For options that name a file to write: an existing FIFO, socket, device or directory is
// refused while the arguments are parsed, before any work (the writer would refuse it too).
inline CLI::Validator outputFile()
{
    return CLI::Validator(
        [](std::string& path) {
            const Status s = checkWritableTarget(path);
            return s.ok() ? std::string() : s.error().toString();
        },
        "FILE");
}

void addInspectCommand(CLI::App& app, int& exitCode);
void addExplainCommand(CLI::App& app, int& exitCode);
void addDiagnoseCommand(CLI::App& app, int& exitCode);
void addCompileProfileCommand(CLI::App& app, int& exitCode);
void addCacheCommand(CLI::App& app, int& exitCode);
void addCompileCommand(CLI::App& app, int& exitCode);
void addPartitionCommand(CLI::App& app, int& exitCode);
void addRenderCommand(CLI::App& app, int& exitCode);
void addRunCommand(CLI::App& app, int& exitCode);
void addProfileCommand(CLI::App& app, int& exitCode);
void addStructureCommand(CLI::App& app, int& exitCode);
void addAttributeCommand(CLI::App& app, int& exitCode);
void addReportCommand(CLI::App& app, int& exitCode);

} // namespace fxs::cli
