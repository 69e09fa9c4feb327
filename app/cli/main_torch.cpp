// fxscope-cli-torch: every fxscope-cli command, with LibTorch (inspect, explain, run, partition,
// compile and profile PyTorch graphs from scripts). fxscope-cli runs the torch-free commands
// itself and hands every other command line here unchanged (app/cli/launcher.h). JSON outputs
// are contracts documented in README.md.
#include "app/cli/commands.h"
#include "app/cli/launcher.h"
#include "core/about/versions.h"
#include "core/torchscript/torchscript_loader.h"
#include "core/util/json_text.h"

#include <nlohmann/json.hpp>

#include <iostream>

namespace {

// `--version`: the program's version, then one line per library; with `--json`, the README's
// {"fxscope", "components": [{"name", "built", "running"}]} contract.
std::string versionText(bool json)
{
    const auto components = fxs::about::componentVersions();
    if (json) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& c : components) {
            list.push_back({{"name", c.name}, {"built", c.built}, {"running", c.running}});
        }
        return fxs::dumpJson({{"fxscope", FXSCOPE_VERSION}, {"components", list}}, 2);
    }
    std::string text = std::string("fxscope-cli ") + FXSCOPE_VERSION;
    for (const auto& c : components) {
        text += "\n" + c.text();
    }
    return text;
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app{"fxscope-cli: inspect, explain and compile PyTorch graphs"};
    app.require_subcommand(1);
    bool json = false; // read through the option's count: the version flag's callback may run first
    CLI::Option* versionJson = app.add_flag("--json", json, "With --version: the versions as JSON");
    app.set_version_flag("--version",
                         [versionJson] { return versionText(versionJson->count() > 0); });
    int exitCode = 0;
    fxs::torchscript::registerLoader(); // .pt files in inspect and every loadPaths caller
    fxs::cli::addTorchFreeCommands(app, exitCode);
    fxs::cli::addCompileCommand(app, exitCode);
    fxs::cli::addPartitionCommand(app, exitCode);
    fxs::cli::addRunCommand(app, exitCode);
    fxs::cli::addProfileCommand(app, exitCode);
    fxs::cli::addStructureCommand(app, exitCode);
    return fxs::cli::runCommandLine(app, argc, argv, exitCode);
}
