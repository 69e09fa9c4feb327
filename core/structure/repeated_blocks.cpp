#include "core/structure/repeated_blocks.h"

#include <algorithm>
#include <map>
#include <utility>

namespace fxs::structure {
namespace {

// Equal structural hashes: the same code. Not the same node count: the hash leaves out layout
// copies a compiled graph adds to some instances only (structural_hash.h).
bool sameShape(const Module& a, const Module& b)
{
    return a.hash == b.hash && a.hash != 0;
}

const std::vector<ModuleId>& siblingsOf(const ModuleTree& tree, ModuleId m)
{
    const ModuleId p = tree.modules[m].parent;
    return p == kNoModule ? tree.roots : tree.modules[p].children;
}

ModuleId childNamed(const ModuleTree& tree, ModuleId parent, std::string_view name)
{
    for (ModuleId c : tree.modules[parent].children) {
        if (tree.modules[c].name() == name) {
            return c;
        }
    }
    return kNoModule;
}

} // namespace

void markIdenticalModules(ModuleTree& tree)
{
    // Preorder: a parent's mark is final before its children are looked at.
    for (ModuleId m = 0; m < tree.modules.size(); ++m) {
        Module& mod = tree.modules[m];
        mod.identicalTo = kNoModule;
        if (mod.parent != kNoModule && tree.modules[mod.parent].identicalTo != kNoModule) {
            const ModuleId twin = childNamed(tree, tree.modules[mod.parent].identicalTo, mod.name());
            if (twin != kNoModule && sameShape(tree.modules[twin], mod)) {
                mod.identicalTo = twin;
                continue;
            }
        }
        for (ModuleId s : siblingsOf(tree, m)) {
            if (s == m) {
                break;
            }
            if (sameShape(tree.modules[s], mod)) {
                const ModuleId first = tree.modules[s].identicalTo;
                mod.identicalTo = first != kNoModule ? first : s;
                break;
            }
        }
    }
}

std::vector<RepeatedBlock> repeatedBlocksOf(const ModuleTree& tree)
{
    std::vector<RepeatedBlock> out;
    auto groupSiblings = [&](const std::vector<ModuleId>& siblings) {
        std::map<std::uint64_t, std::size_t> index;
        std::vector<RepeatedBlock> groups;
        for (ModuleId s : siblings) {
            const Module& mod = tree.modules[s];
            if (mod.hash == 0) {
                continue;
            }
            const auto [it, fresh] = index.emplace(mod.hash, groups.size());
            if (fresh) {
                groups.push_back({mod.totalNodes, mod.hash, {}});
            }
            groups[it->second].instances.push_back(s);
        }
        for (auto& g : groups) {
            if (g.instances.size() >= 2) {
                out.push_back(std::move(g));
            }
        }
    };
    groupSiblings(tree.roots);
    for (ModuleId m = 0; m < tree.modules.size(); ++m) {
        bool insideCopy = false;
        for (ModuleId x = m; x != kNoModule && !insideCopy; x = tree.modules[x].parent) {
            insideCopy = tree.modules[x].identicalTo != kNoModule;
        }
        if (!insideCopy) {
            groupSiblings(tree.modules[m].children);
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const RepeatedBlock& a, const RepeatedBlock& b) {
        return a.nodesEach * a.instances.size() > b.nodesEach * b.instances.size();
    });
    return out;
}

} // namespace fxs::structure
