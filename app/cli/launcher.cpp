#include "app/cli/launcher.h"

#include "app/cli/commands.h"
#include "core/io/graph_file_loaders.h"

#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

namespace fxs::cli {

namespace fs = std::filesystem;

namespace {

constexpr const char* kTorchProgram = "fxscope-cli-torch";

constexpr std::array<std::string_view, 8> kTorchFreeCommands = {
    "inspect", "explain", "diagnose", "report", "attribute", "render", "cache", "compile-profile"};

std::string ownFolder()
{
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : self.parent_path().string();
}

bool isRegularFile(const fs::path& p)
{
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

} // namespace

void addTorchFreeCommands(CLI::App& app, int& exitCode)
{
    addInspectCommand(app, exitCode);
    addExplainCommand(app, exitCode);
    addDiagnoseCommand(app, exitCode);
    addCompileProfileCommand(app, exitCode);
    addCacheCommand(app, exitCode);
    addRenderCommand(app, exitCode);
    addAttributeCommand(app, exitCode);
    addReportCommand(app, exitCode);
}

int runCommandLine(CLI::App& app, int argc, char** argv, const int& exitCode)
{
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }
    return exitCode;
}

std::string_view commandOf(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        if (argv[i][0] != '-') {
            return argv[i];
        }
    }
    return {};
}

bool isTorchFreeCommand(std::string_view command)
{
    for (const auto c : kTorchFreeCommands) {
        if (c == command) {
            return true;
        }
    }
    return false;
}

bool namesTorchScriptFile(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        // Options given as --name=value name files too.
        std::string_view arg = argv[i];
        if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != arg.npos) {
            arg.remove_prefix(eq + 1);
        }
        const std::string path(arg);
        if (isRegularFile(path) && io::looksLikeTorchScriptArchive(path)) {
            return true;
        }
    }
    return false;
}

std::string torchProgramPath(const std::string& privateLibDir)
{
    const std::string folder = ownFolder();
    if (folder.empty()) {
        return {};
    }
    for (const fs::path& candidate : {fs::path(folder) / kTorchProgram,
                                     fs::path(folder) / privateLibDir / kTorchProgram}) {
        if (isRegularFile(candidate)) {
            return candidate.lexically_normal().string();
        }
    }
    return {};
}

int execTorchProgram(char** argv, const std::string& privateLibDir)
{
    const std::string program = torchProgramPath(privateLibDir);
    if (program.empty()) {
        std::cerr << "fxscope-cli: this command needs LibTorch, and " << kTorchProgram
                  << " was found neither beside fxscope-cli nor in its library folder ("
                  << privateLibDir << ")\n";
        return 127;
    }
    std::cout.flush();
    std::fflush(stdout);
    ::execv(program.c_str(), argv);
    std::cerr << "fxscope-cli: could not start " << program << ": " << std::strerror(errno)
              << "\n";
    return 127;
}

void registerTorchScriptHandOver(char** argv, const std::string& privateLibDir)
{
    io::registerGraphFileLoader(
        "torchscript", &io::looksLikeTorchScriptArchive,
        [argv, privateLibDir](const std::string& path,
                              Diagnostics&) -> Result<model::GraphArtifact> {
            // Nothing has been printed yet: commands print once everything is loaded.
            const int status = execTorchProgram(argv, privateLibDir);
            return makeError(ErrorCode::Unsupported,
                             "a TorchScript archive needs fxscope-cli-torch (exit " +
                                 std::to_string(status) + ")",
                             path);
        });
}

} // namespace fxs::cli
