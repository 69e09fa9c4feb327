#include "app/cli/remote_option.h"

#include <iostream>

namespace fxs::cli {

void addRemoteOptions(CLI::App* cmd, RemoteCliOptions& o)
{
    cmd->add_option("--remote", o.url,
                    "Remote cache tier: redis://host:port[/db] (team key: $FXSCOPE_CACHE_KEY or "
                    "$FXSCOPE_CACHE_KEY_FILE)");
    cmd->add_option("--remote-connect-ms", o.connectMs,
                    "Remote tier: connect timeout in ms (default 100)")
        ->check(CLI::Range(1, 600000));
    cmd->add_option("--remote-timeout-ms", o.timeoutMs,
                    "Remote tier: timeout of each command in ms (default 1000)")
        ->check(CLI::Range(1, 600000));
}

Result<std::unique_ptr<remote::RemoteTier>> openRemote(const RemoteCliOptions& o)
{
    if (o.url.empty()) {
        return std::unique_ptr<remote::RemoteTier>();
    }
    remote::RemoteOptions ro;
    ro.url = o.url;
    ro.timeouts.connectMs = o.connectMs;
    ro.timeouts.commandMs = o.timeoutMs;
    return remote::RemoteTier::open(ro);
}

void printRemoteWarnings(const std::string& command, const remote::RemoteTier& tier)
{
    for (const auto& w : tier.warnings()) {
        std::cerr << "fxscope-cli " << command << ": warning: " << w << "\n";
    }
}

nlohmann::json remoteJson(const remote::RemoteTier& tier)
{
    return {{"url", tier.url()},
            {"online", tier.online()},
            {"has_key", tier.hasKey()},
            {"warnings", tier.warnings()}};
}

} // namespace fxs::cli
