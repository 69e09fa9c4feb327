// Registration of fxscope-cli subcommands. Each add*Command adds one subcommand to app and
// stores its exit status in exitCode when it runs. One .cpp per subcommand.
#pragma once

#include <CLI/CLI.hpp>

namespace fxs::cli {

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

} // namespace fxs::cli
