// What `fxscope-cli cache` shares between its local side (cmd_cache.cpp: the SQLite store) and
// its remote side (cmd_cache_remote.cpp: the Redis tier, with --remote): the options and the
// JSON of entries, diffs, gc and verify reports, so both print one contract (README).
#pragma once

#include "app/cli/remote_option.h"
#include "core/cache/cache_store.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace fxs::cli {

struct CacheOptions {
    std::string db;
    std::string key1;
    std::string key2;
    std::int64_t maxBytes = -1;
    std::string subcommand; // "ls", "show", ...
    RemoteCliOptions remote;
};

nlohmann::json cacheEntryJson(const cache::EntryInfo& e, bool withComponents);
nlohmann::json componentChangesJson(const std::vector<cache::KeyComponent>& a,
                                    const std::vector<cache::KeyComponent>& b);
nlohmann::json gcJson(const cache::GcReport& r);
// Prints the report; returns the exit code (0 ok, 3 damage found).
int printVerify(const cache::VerifyReport& r);

// ls, show, diff, gc and verify on the remote tier (--remote); stats are local only.
int runRemoteCache(const CacheOptions& o);

} // namespace fxs::cli
