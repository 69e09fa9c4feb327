#include "core/io/graph_file_loaders.h"

#include "core/util/file_reader.h"

#include <algorithm>
#include <mutex>

namespace fxs::io {
namespace {

struct Registry {
    std::mutex mutex;
    std::vector<GraphFileLoader> loaders;
};

Registry& registry()
{
    static Registry r; // a function-local static: initialised on first use, not at load time
    return r;
}

} // namespace

void registerGraphFileLoader(std::string name, GraphFileSniffer sniff, GraphFileLoadFn load)
{
    auto& r = registry();
    const std::lock_guard lock(r.mutex);
    GraphFileLoader loader{std::move(name), std::move(sniff), std::move(load)};
    auto it = std::find_if(r.loaders.begin(), r.loaders.end(),
                           [&](const GraphFileLoader& l) { return l.name == loader.name; });
    if (it != r.loaders.end()) {
        *it = std::move(loader);
    } else {
        r.loaders.push_back(std::move(loader));
    }
}

std::optional<GraphFileLoader> findGraphFileLoader(const std::string& path)
{
    std::vector<GraphFileLoader> loaders;
    {
        auto& r = registry();
        const std::lock_guard lock(r.mutex);
        loaders = r.loaders; // sniff outside the lock: sniffers read files
    }
    for (auto& l : loaders) {
        if (l.sniff && l.load && l.sniff(path)) {
            return std::move(l);
        }
    }
    return std::nullopt;
}

std::vector<std::string> graphFileLoaderNames()
{
    auto& r = registry();
    const std::lock_guard lock(r.mutex);
    std::vector<std::string> names;
    for (const auto& l : r.loaders) {
        names.push_back(l.name);
    }
    return names;
}

bool looksLikeTorchScriptArchive(const std::string& path)
{
    auto head = readFileHead(path, 4096);
    if (!head.ok()) {
        return false;
    }
    return head->rfind("PK\x03\x04", 0) == 0 &&
           (head->find("/code/") != std::string::npos ||
            head->find("constants.pkl") != std::string::npos);
}

} // namespace fxs::io
