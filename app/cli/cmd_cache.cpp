// fxscope-cli cache [--cache DB] [--remote URL] ls | show KEY | diff KEY1 KEY2 |
// gc [--max-bytes N] | stats | verify | repair: inspect and maintain the region compiler's SQLite
// artifact store, or with --remote its Redis tier (cmd_cache_remote.cpp). Output is JSON (README).
#include "app/cli/commands.h"
#include "app/cli/cache_cli.h"
#include "app/cli/json_output.h"
#include "core/cache/cache_explain.h"
#include "core/cache/cache_store.h"
#include "core/cache/database_file.h"

#include <nlohmann/json.hpp>

#include <iostream>

namespace fxs::cli {

using nlohmann::json;

// The exit status of every cache subcommand that finds the database or an entry damaged.
constexpr int kExitDamaged = 3;

json cacheEntryJson(const cache::EntryInfo& e, bool withComponents)
{
    json j = {{"key", e.key},
              {"region_digest", e.regionDigest},
              {"title", e.title},
              {"status", cache::entryStatusName(e.status)},
              {"status_reason", e.statusReason},
              {"status_code", static_cast<int>(e.statusCode)},
              {"status_code_name", cache::reasonName(e.statusCode)},
              {"so_bytes", e.soBytes},
              {"source_bytes", e.sourceBytes},
              {"blob_bytes", e.blobBytes},
              {"blob_sha256", e.blobSha256},
              {"compile_ms", e.compileMs},
              {"created_ms", e.createdMs},
              {"last_hit_ms", e.lastHitMs},
              {"hit_count", e.hitCount}};
    if (withComponents) {
        json cs = json::array();
        for (const auto& c : e.components) {
            cs.push_back({{"label", c.label}, {"digest", c.digest}, {"text", c.text}});
        }
        j["components"] = std::move(cs);
    }
    return j;
}

json gcJson(const cache::GcReport& r)
{
    return {{"removed", r.removed},
            {"bytes_before", r.bytesBefore},
            {"bytes_after", r.bytesAfter},
            {"files_removed", r.filesRemoved},
            {"build_dirs_removed", r.buildDirsRemoved}};
}

int printVerify(const cache::VerifyReport& r)
{
    json corrupt = json::array();
    for (const auto& [key, problem] : r.corrupt) {
        corrupt.push_back({{"key", key}, {"problem", problem}});
    }
    // The remote tier says "ok (checksums only: ...)" without a team key.
    const bool ok = r.damage.empty() && r.corrupt.empty() && r.integrity.rfind("ok", 0) == 0;
    json j = {{"checked", r.checked}, {"corrupt", corrupt}, {"integrity", r.integrity}, {"ok", ok}};
    if (!r.damage.empty()) {
        j["damage"] = r.damage;
    }
    if (!r.notice.empty()) {
        j["notice"] = r.notice;
        std::cerr << "fxscope-cli cache: note: " << r.notice << "\n";
    }
    printJson(j);
    return ok ? 0 : kExitDamaged;
}

json componentChangesJson(const std::vector<cache::KeyComponent>& a,
                          const std::vector<cache::KeyComponent>& b)
{
    json changes = json::array();
    for (const auto& c : cache::diffKeys(a, b)) {
        changes.push_back({{"label", c.component},
                           {"kind", c.change == cache::ChangeKind::Changed ? "changed"
                                    : c.change == cache::ChangeKind::OnlyB ? "added"
                                                                           : "removed"},
                           {"field", c.field},
                           {"before", c.a},
                           {"after", c.b},
                           {"description", c.summary}});
    }
    return changes;
}

namespace cmd_cache_detail {

int fail(const Error& e)
{
    std::cerr << "fxscope-cli cache: " << e.toString() << "\n";
    return 1;
}

Result<std::unique_ptr<cache::CacheStore>> openStore(const CacheOptions& o)
{
    cache::StoreOptions so;
    so.path = o.db;
    return cache::CacheStore::open(so);
}

Result<cache::EntryInfo> entryByPrefix(cache::CacheStore& store, const std::string& prefix)
{
    auto key = store.resolvePrefix(prefix);
    if (!key) {
        return key.error();
    }
    auto info = store.info(*key);
    if (!info) {
        return info.error();
    }
    if (!info->has_value()) {
        return makeError(ErrorCode::Checksum, "the entry's row is corrupt (run cache verify)",
                         *key);
    }
    return **info;
}

int runLs(cache::CacheStore& store)
{
    auto entries = store.list();
    if (!entries) {
        return fail(entries.error());
    }
    json list = json::array();
    std::int64_t bytes = 0;
    for (const auto& e : *entries) {
        list.push_back(cacheEntryJson(e, false));
        bytes += e.blobBytes;
    }
    auto disk = store.totalBytes();
    if (!disk) {
        return fail(disk.error());
    }
    printJson({{"path", store.path()},
                      {"entries", list},
                      {"total_bytes", bytes},
                      {"disk_bytes", *disk}});
    return 0;
}

int runShow(cache::CacheStore& store, const CacheOptions& o)
{
    auto e = entryByPrefix(store, o.key1);
    if (!e) {
        return fail(e.error());
    }
    printJson(cacheEntryJson(*e, true));
    return 0;
}

int runDiff(cache::CacheStore& store, const CacheOptions& o)
{
    auto a = entryByPrefix(store, o.key1);
    auto b = a ? entryByPrefix(store, o.key2) : a;
    if (!a || !b) {
        return fail(!a ? a.error() : b.error());
    }
    printJson({{"key1", a->key},
               {"key2", b->key},
               {"same_region", a->regionDigest == b->regionDigest},
               {"changes", componentChangesJson(a->components, b->components)}});
    return 0;
}

int runGc(cache::CacheStore& store, const CacheOptions& o)
{
    auto r = store.gc(o.maxBytes < 0 ? std::int64_t(2) * 1024 * 1024 * 1024 : o.maxBytes);
    if (!r) {
        return fail(r.error());
    }
    printJson(gcJson(*r));
    return 0;
}

int runVerify(cache::CacheStore& store)
{
    auto r = store.verify();
    if (!r) {
        return fail(r.error());
    }
    if (!r->damage.empty()) {
        std::cerr << "fxscope-cli cache: " << store.conditionWarning() << "\n";
    }
    return printVerify(*r);
}

// Damage to the database's own structure: what verify reports, or integrity_check's complaint
// (empty: none).
Result<std::string> damageOf(cache::CacheStore& store)
{
    auto r = store.verify();
    if (!r) {
        return r.error();
    }
    if (!r->damage.empty()) {
        return r->damage;
    }
    return r->integrity == "ok" ? std::string() : r->integrity;
}

// Moves a damaged database aside (never deleting it) and starts a fresh one; a healthy one is
// left alone.
int runRepair(const CacheOptions& o)
{
    if (!o.remote.url.empty()) {
        return fail(makeError(ErrorCode::Invalid, "repair works on the local cache only"));
    }
    auto store = openStore(o);
    if (!store) {
        return fail(store.error());
    }
    const std::string path = (*store)->path();
    auto damage = damageOf(**store);
    if (!damage) {
        return fail(damage.error());
    }
    if (damage->empty()) {
        printJson({{"path", path}, {"damaged", false}, {"moved_to", nullptr}});
        return 0;
    }
    store->reset(); // the connection goes before its file is renamed
    auto moved = cache::moveDatabaseAside(path);
    if (!moved) {
        return fail(moved.error());
    }
    auto fresh = openStore(o);
    if (!fresh) {
        return fail(fresh.error());
    }
    std::cerr << "fxscope-cli cache: moved the damaged database to " << *moved
              << "; a fresh cache was started\n";
    printJson({{"path", path}, {"damaged", true}, {"problem", *damage}, {"moved_to", *moved}});
    return 0;
}

std::string_view categoryName(cache::ReasonCategory c)
{
    switch (c) {
    case cache::ReasonCategory::Hit: return "hit";
    case cache::ReasonCategory::Miss: return "miss";
    case cache::ReasonCategory::Bypass: return "bypass";
    case cache::ReasonCategory::Fallback: return "fallback";
    case cache::ReasonCategory::None: break;
    }
    return "unknown";
}

int runStats(cache::CacheStore& store)
{
    auto stats = store.stats();
    if (!stats) {
        return fail(stats.error());
    }
    json list = json::array();
    for (const auto& [code, count] : *stats) {
        const cache::ReasonInfo& info = cache::reasonInfo(cache::reasonFromCode(code));
        list.push_back({{"code", code},
                        {"name", info.reason == cache::Reason::None ? "unknown" : info.name},
                        {"category", categoryName(info.category)},
                        {"count", count}});
    }
    printJson({{"path", store.path()}, {"stats", list}});
    return 0;
}

// Opens the store (or with --remote the tier) and runs one subcommand; exit codes: 0 ok,
// 1 error, 3 (kExitDamaged) the database or an entry is damaged. A damaged database is reported
// by verify; the other subcommands refuse it with the fix.
template <class F>
void withStore(const CacheOptions& o, int& exitCode, F&& f)
{
    if (!o.remote.url.empty()) {
        exitCode = runRemoteCache(o);
        return;
    }
    auto store = openStore(o);
    if (!store) {
        exitCode = fail(store.error());
        return;
    }
    const cache::StoreCondition condition = (*store)->condition();
    if (condition == cache::StoreCondition::Damaged && o.subcommand != "verify") {
        std::cerr << "fxscope-cli cache: " << (*store)->conditionWarning() << "\n";
        exitCode = kExitDamaged;
        return;
    }
    if (condition == cache::StoreCondition::ReadOnly) {
        std::cerr << "fxscope-cli cache: warning: " << (*store)->conditionWarning() << "\n";
    }
    exitCode = f(**store);
    if (exitCode == 1 && (*store)->condition() == cache::StoreCondition::Damaged) {
        exitCode = kExitDamaged; // the command ran into the damage (its error says so)
    }
}

} // namespace cmd_cache_detail

void addCacheCommand(CLI::App& app, int& exitCode)
{
    using namespace cmd_cache_detail;
    auto opts = std::make_shared<CacheOptions>();
    auto* cmd = app.add_subcommand("cache", "Inspect and maintain the region compiler's cache");
    cmd->add_option("--cache", opts->db, "Cache database (default: $FXSCOPE_CACHE_DIR/cache.db, "
                                         "$XDG_CACHE_HOME/fxscope/cache.db, ~/.cache/...)");
    addRemoteOptions(cmd, opts->remote);
    cmd->require_subcommand(1);
    auto* ls = cmd->add_subcommand("ls", "List entries, most recently hit first");
    ls->callback([opts, &exitCode] {
        opts->subcommand = "ls";
        withStore(*opts, exitCode, [](cache::CacheStore& s) { return runLs(s); });
    });
    auto* show = cmd->add_subcommand("show", "Show one entry and its key components");
    show->add_option("KEY", opts->key1, "Key or unique prefix")->required();
    show->callback([opts, &exitCode] {
        opts->subcommand = "show";
        withStore(*opts, exitCode, [&](cache::CacheStore& s) { return runShow(s, *opts); });
    });
    auto* diff = cmd->add_subcommand("diff", "Component diff of two entries");
    diff->add_option("KEY1", opts->key1, "Key or unique prefix")->required();
    diff->add_option("KEY2", opts->key2, "Key or unique prefix")->required();
    diff->callback([opts, &exitCode] {
        opts->subcommand = "diff";
        withStore(*opts, exitCode, [&](cache::CacheStore& s) { return runDiff(s, *opts); });
    });
    auto* gc = cmd->add_subcommand("gc", "Evict least recently hit entries beyond a size");
    gc->add_option("--max-bytes", opts->maxBytes,
                   "Bytes to keep: database plus artifact files (default 2 GiB)");
    gc->callback([opts, &exitCode] {
        opts->subcommand = "gc";
        withStore(*opts, exitCode, [&](cache::CacheStore& s) { return runGc(s, *opts); });
    });
    auto* stats = cmd->add_subcommand("stats", "How often each numbered reason ended a compile");
    stats->callback([opts, &exitCode] {
        opts->subcommand = "stats";
        withStore(*opts, exitCode, [](cache::CacheStore& s) { return runStats(s); });
    });
    auto* verify = cmd->add_subcommand("verify", "Check every row and blob checksum");
    verify->callback([opts, &exitCode] {
        opts->subcommand = "verify";
        withStore(*opts, exitCode, [](cache::CacheStore& s) { return runVerify(s); });
    });
    auto* repair = cmd->add_subcommand(
        "repair", "Move a damaged database aside (<name>.corrupt-<time>) and start a fresh one");
    repair->callback([opts, &exitCode] {
        opts->subcommand = "repair";
        exitCode = runRepair(*opts);
    });
}

} // namespace fxs::cli
