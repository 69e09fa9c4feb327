// Registration of fxscope-cli subcommands. Each add*Command adds one subcommand to app and
// stores its exit status in exitCode when it runs. One .cpp per subcommand.
#pragma once

#include <CLI/CLI.hpp>

namespace fxs::cli {

void addInspectCommand(CLI::App& app, int& exitCode);

} // namespace fxs::cli
