// Which program runs a command line. `fxscope-cli` is the torch-free front end: it runs the
// commands that read logs, traces, graphs and caches (inspect, explain, diagnose, report,
// attribute, render, cache, compile-profile) without loading LibTorch, whose start-up alone
// takes about a second. Every other command line (run, compile, profile, partition, structure,
// --version, --help, a TorchScript `.pt` input) is handed, unchanged, to `fxscope-cli-torch`,
// the same front end with every command: exec'd from fxscope-cli's own folder (the build tree)
// or its private library folder (an installed package), never from PATH. Not a plugin loader.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>

namespace fxs::cli {

// Adds the commands fxscope-cli runs itself (those isTorchFreeCommand names) to app.
void addTorchFreeCommands(CLI::App& app, int& exitCode);

// Parses the command line into app and runs its command: the program's exit status.
int runCommandLine(CLI::App& app, int argc, char** argv, const int& exitCode);

// The subcommand of a command line: its first argument that is not an option ("" for none).
// fxscope-cli's own options (--json, --version, --help) take no values.
std::string_view commandOf(int argc, char** argv);

// True for the commands fxscope-cli runs itself.
bool isTorchFreeCommand(std::string_view command);

// True when an argument names an existing file that is a TorchScript archive (sniffed like the
// TorchScript reader sniffs it).
bool namesTorchScriptFile(int argc, char** argv);

// Where fxscope-cli-torch is: beside this program, else in the private library folder named by
// privateLibDir (relative to this program's folder). Empty when neither exists.
std::string torchProgramPath(const std::string& privateLibDir);

// Replaces this process by fxscope-cli-torch with the same arguments. Returns only when that
// failed: the message has been printed, and the exit status to use is returned (127).
int execTorchProgram(char** argv, const std::string& privateLibDir);

// Registers a TorchScript loader for io::loadPaths that hands the whole command line to
// fxscope-cli-torch (for `.pt` files inside a folder the arguments did not name directly).
// argv must outlive the program's run (main's argv does).
void registerTorchScriptHandOver(char** argv, const std::string& privateLibDir);

} // namespace fxs::cli
