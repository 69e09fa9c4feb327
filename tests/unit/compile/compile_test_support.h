// Helpers shared by the region compiler tests (tests/unit/compile): tensor meta for hand-built
// graphs, node references, and a cache store in a temporary directory. Test code only.
#pragma once

#include "core/cache/cache_store.h"
#include "core/compile/region_compiler.h"
#include "core/graph/graph_builder.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fxs::test {

inline graph::TensorMeta meta(std::vector<std::int64_t> sizes,
                              graph::DType t = graph::DType::Float32)
{
    graph::TensorMeta m;
    m.dtype = t;
    for (auto s : sizes) {
        m.sizes.push_back(graph::SymInt::of(s));
    }
    return m;
}

inline graph::Argument ref(graph::NodeId id) { return graph::Argument::ref(id); }

// A fresh store at DIR/cache/cache.db; null when it cannot be opened.
inline std::unique_ptr<cache::CacheStore> openStore(const std::string& dir)
{
    cache::StoreOptions so;
    so.path = dir + "/cache/cache.db";
    auto s = cache::CacheStore::open(so);
    return s.ok() ? std::move(*s) : nullptr;
}

inline compile::CompileOptions compileOptions(cache::CacheStore* store, int timingRepeats)
{
    compile::CompileOptions o;
    o.store = store;
    o.timingRepeats = timingRepeats;
    return o;
}

} // namespace fxs::test
