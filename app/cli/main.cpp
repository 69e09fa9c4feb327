// fxscope-cli: the torch-free front end. Runs the commands that read logs, traces, graphs and
// caches without loading LibTorch; hands every other command line to fxscope-cli-torch
// (app/cli/launcher.h says which and why). JSON outputs are contracts documented in README.md.
#include "app/cli/launcher.h"

int main(int argc, char** argv)
{
    const std::string libDir = FXSCOPE_CLI_PRIVATE_LIBDIR;
    if (!fxs::cli::isTorchFreeCommand(fxs::cli::commandOf(argc, argv)) ||
        fxs::cli::namesTorchScriptFile(argc, argv)) {
        return fxs::cli::execTorchProgram(argv, libDir);
    }
    CLI::App app{"fxscope-cli: inspect, explain and compile PyTorch graphs"};
    app.require_subcommand(1);
    int exitCode = 0;
    fxs::cli::registerTorchScriptHandOver(argv, libDir); // .pt files inside folders
    fxs::cli::addTorchFreeCommands(app, exitCode);
    return fxs::cli::runCommandLine(app, argc, argv, exitCode);
}
