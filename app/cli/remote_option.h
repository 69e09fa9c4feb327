// `--remote redis://host:port[/db]` (and its timeouts) as compile, profile and cache take it:
// the options, opening the tier, its warnings on stderr and its JSON object. The tier itself is
// core/remote; what the commands do with it is theirs.
#pragma once

#include "core/remote/remote_tier.h"
#include "core/util/result.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <memory>
#include <string>

namespace fxs::cli {

struct RemoteCliOptions {
    std::string url; // empty: no remote tier
    int connectMs = 100;
    int timeoutMs = 1000;
};

void addRemoteOptions(CLI::App* cmd, RemoteCliOptions& o);

// Null when no --remote was given. Errors: the URL does not parse, the key file is refused.
// A server that cannot be reached is not an error (the tier is offline, with its warning).
Result<std::unique_ptr<remote::RemoteTier>> openRemote(const RemoteCliOptions& o);

// Each of the tier's warnings once, as "fxscope-cli <command>: warning: ...".
void printRemoteWarnings(const std::string& command, const remote::RemoteTier& tier);

// {"url", "online", "has_key", "warnings": [...]}.
nlohmann::json remoteJson(const remote::RemoteTier& tier);

} // namespace fxs::cli
