#include "core/io/directory_plan.h"

#include "core/io/torch_trace_reader.h"
#include "core/util/file_reader.h"
#include "core/util/strings.h"

#include <algorithm>
#include <filesystem>
#include <map>

namespace fxs::io {

namespace {

constexpr std::string_view kRankPrefix = "dedicated_log_torch_trace_rank_";

std::string fileName(const std::string& path)
{
    return std::filesystem::path(path).filename().string();
}

bool isEmptyFile(const std::string& path)
{
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    return !ec && size == 0;
}

bool looksLikeLog(const std::string& path)
{
    auto head = readFileHead(path);
    return head.ok() && looksLikeTorchTrace(*head);
}

// Files that claim one rank: read both, but say so (a copy, or two jobs in one folder).
void warnSharedRanks(const PlannedRun& run, const std::string& dir, Diagnostics& notes)
{
    std::map<int, std::vector<std::string>> byRank;
    for (const auto& f : run.files) {
        byRank[f.rank].push_back(fileName(f.path));
    }
    for (const auto& [rank, names] : byRank) {
        if (names.size() > 1) {
            notes.warning(dir, 0,
                          "rank " + std::to_string(rank) + " is claimed by " +
                              std::to_string(names.size()) + " files (" + join(names, ", ") +
                              "); their records are read as one rank's");
        }
    }
}

DirectoryPlan planRanked(const std::string& dir, const std::vector<std::string>& files)
{
    DirectoryPlan plan;
    PlannedRun run{dir, {}};
    for (const auto& path : files) {
        const auto rank = rankFromFileName(fileName(path));
        if (!rank) {
            plan.notes.note(path, 0,
                            "ignored: not a rank log (dedicated_log_torch_trace_rank_N.log) in a "
                            "folder of rank logs");
        } else if (isEmptyFile(path)) {
            plan.notes.note(path, 0, "ignored: the rank log is empty");
        } else {
            run.files.push_back({path, *rank});
        }
    }
    std::stable_sort(run.files.begin(), run.files.end(),
                     [](const PlannedFile& a, const PlannedFile& b) { return a.rank < b.rank; });
    warnSharedRanks(run, dir, plan.notes);
    if (!run.files.empty()) {
        plan.runs.push_back(std::move(run));
    }
    return plan;
}

DirectoryPlan planUnranked(const std::string& dir, const std::vector<std::string>& files)
{
    DirectoryPlan plan;
    std::vector<std::string> logs;
    for (const auto& path : files) {
        if (isEmptyFile(path)) {
            plan.notes.note(path, 0, "ignored: the file is empty");
        } else if (!looksLikeLog(path)) {
            plan.notes.note(path, 0, "ignored: not a TORCH_TRACE log");
        } else {
            logs.push_back(path);
        }
    }
    if (logs.size() == 1) {
        plan.runs.push_back({dir, {{logs.front(), -1}}});
        return plan;
    }
    for (const auto& path : logs) {
        plan.runs.push_back({path, {{path, -1}}});
    }
    return plan;
}

} // namespace

std::optional<int> rankFromFileName(std::string_view name)
{
    if (!startsWith(name, kRankPrefix)) {
        return std::nullopt;
    }
    name.remove_prefix(kRankPrefix.size());
    if (endsWith(name, ".gz")) {
        name.remove_suffix(3);
    }
    if (!endsWith(name, ".log")) {
        return std::nullopt;
    }
    name.remove_suffix(4);
    const std::string_view digits = name.substr(0, name.find('_'));
    if (digits.empty() || digits.size() > 9 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return std::nullopt;
    }
    return std::stoi(std::string(digits));
}

DirectoryPlan planDirectory(const std::string& dir)
{
    try {
        auto files = listFiles(dir);
        if (!files.ok()) {
            DirectoryPlan plan;
            plan.notes.error(dir, 0, files.error().message, "a readable directory",
                             files.error().found);
            return plan;
        }
        const bool ranked = std::any_of(files->begin(), files->end(), [](const auto& f) {
            return rankFromFileName(fileName(f)).has_value();
        });
        DirectoryPlan plan = ranked ? planRanked(dir, *files) : planUnranked(dir, *files);
        if (plan.runs.empty()) {
            plan.notes.error(dir, 0, "the directory holds no TORCH_TRACE logs",
                             "one TORCH_TRACE log per rank or process",
                             files->empty() ? "no regular files"
                                            : std::to_string(files->size()) + " other file(s)");
        }
        return plan;
    } catch (const std::exception& e) {
        DirectoryPlan plan;
        plan.notes.error(dir, 0, std::string("internal error while listing: ") + e.what());
        return plan;
    }
}

} // namespace fxs::io
