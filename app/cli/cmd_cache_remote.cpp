// fxscope-cli cache --remote URL ls | show KEY | diff KEY1 KEY2 | gc [--max-bytes N] | verify:
// the same JSON as the local store's (cache_cli.h), read from the Redis tier, plus "remote"
// (the URL). An unreachable server is an error here (exit 1), not a warning.
#include "app/cli/cache_cli.h"
#include "app/cli/json_output.h"

#include <iostream>

namespace fxs::cli {
namespace cmd_cache_remote_detail {

using nlohmann::json;

int fail(const Error& e)
{
    std::cerr << "fxscope-cli cache: " << e.toString() << "\n";
    return 1;
}

Result<cache::EntryInfo> entryByPrefix(remote::RemoteTier& tier, const std::string& prefix)
{
    auto key = tier.resolvePrefix(prefix);
    if (!key) {
        return key.error();
    }
    auto info = tier.info(*key);
    if (!info) {
        return info.error();
    }
    if (!info->has_value()) {
        return makeError(ErrorCode::Checksum, "the entry's metadata is damaged (run cache verify)",
                         *key);
    }
    return **info;
}

int runLs(remote::RemoteTier& tier)
{
    auto entries = tier.list();
    auto stored = entries ? tier.totalBytes() : Result<std::int64_t>(entries.error());
    if (!stored) {
        return fail(stored.error());
    }
    json list = json::array();
    std::int64_t bytes = 0;
    for (const auto& e : *entries) {
        list.push_back(cacheEntryJson(e, false));
        bytes += e.blobBytes;
    }
    printJson({{"path", tier.url()},
               {"remote", tier.url()},
               {"entries", list},
               {"total_bytes", bytes},
               {"disk_bytes", *stored}});
    return 0;
}

int runShowOrDiff(remote::RemoteTier& tier, const CacheOptions& o)
{
    auto a = entryByPrefix(tier, o.key1);
    if (!a) {
        return fail(a.error());
    }
    if (o.subcommand == "show") {
        json j = cacheEntryJson(*a, true);
        j["remote"] = tier.url();
        printJson(j);
        return 0;
    }
    auto b = entryByPrefix(tier, o.key2);
    if (!b) {
        return fail(b.error());
    }
    printJson({{"key1", a->key},
               {"key2", b->key},
               {"same_region", a->regionDigest == b->regionDigest},
               {"changes", componentChangesJson(a->components, b->components)},
               {"remote", tier.url()}});
    return 0;
}

} // namespace cmd_cache_remote_detail

int runRemoteCache(const CacheOptions& o)
{
    using namespace cmd_cache_remote_detail;
    if (o.subcommand == "stats") {
        return fail(makeError(ErrorCode::Unsupported,
                              "statistics are kept by each local store: run cache stats "
                              "without --remote"));
    }
    auto opened = openRemote(o.remote);
    if (!opened) {
        return fail(opened.error());
    }
    remote::RemoteTier& tier = **opened;
    printRemoteWarnings("cache", tier);
    if (!tier.online()) {
        return fail(makeError(ErrorCode::Io, "the remote cache is not reachable", tier.url()));
    }
    if (o.subcommand == "ls") {
        return runLs(tier);
    }
    if (o.subcommand == "show" || o.subcommand == "diff") {
        return runShowOrDiff(tier, o);
    }
    if (o.subcommand == "gc") {
        auto r = tier.gc(o.maxBytes < 0 ? std::int64_t(2) * 1024 * 1024 * 1024 : o.maxBytes);
        if (!r) {
            return fail(r.error());
        }
        printJson(gcJson(*r));
        return 0;
    }
    auto r = tier.verify();
    return r ? printVerify(*r) : fail(r.error());
}

} // namespace fxs::cli
