// fxscope-cli: inspect, explain, run, partition, compile and profile PyTorch graphs from
// scripts. JSON outputs are contracts documented in README.md.
#include "app/cli/commands.h"
#include "core/torchscript/torchscript_loader.h"

#include <iostream>

int main(int argc, char** argv)
{
    CLI::App app{"fxscope-cli: inspect, explain and compile PyTorch graphs"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("fxscope-cli ") + FXSCOPE_VERSION);
    int exitCode = 0;
    fxs::torchscript::registerLoader(); // .pt files in inspect and every loadPaths caller
    fxs::cli::addInspectCommand(app, exitCode);
    fxs::cli::addExplainCommand(app, exitCode);
    fxs::cli::addDiagnoseCommand(app, exitCode);
    fxs::cli::addCompileProfileCommand(app, exitCode);
    fxs::cli::addCacheCommand(app, exitCode);
    fxs::cli::addCompileCommand(app, exitCode);
    fxs::cli::addPartitionCommand(app, exitCode);
    fxs::cli::addRenderCommand(app, exitCode);
    fxs::cli::addRunCommand(app, exitCode);
    fxs::cli::addProfileCommand(app, exitCode);
    fxs::cli::addStructureCommand(app, exitCode);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }
    return exitCode;
}
