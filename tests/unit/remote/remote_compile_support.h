// A small region (relu(x * y + 1), rows × 16 floats) compiled through the region compiler with a
// local store and the remote tier: shared by tst_remote_compile and its helper process
// remote_compiler. Test code only.
#pragma once

#include "core/cache/cache_store.h"
#include "core/compile/region_compiler.h"
#include "core/exec/interpreter.h"
#include "core/graph/graph_builder.h"
#include "core/remote/remote_tier.h"

#include <memory>
#include <string>

namespace fxs::test {

struct SmallRegion {
    graph::GraphPtr graph;
    std::vector<graph::NodeId> nodes;
    exec::RunReport eager;
};

inline graph::TensorMeta floats(std::int64_t rows)
{
    graph::TensorMeta m;
    m.dtype = graph::DType::Float32;
    m.sizes = {graph::SymInt::of(rows), graph::SymInt::of(16)};
    return m;
}

// Empty graph when the eager run fails.
inline SmallRegion smallRegion(std::int64_t rows)
{
    using graph::Argument;
    graph::GraphBuilder b;
    const auto x = b.placeholder("x", floats(rows));
    const auto y = b.placeholder("y", floats(rows));
    const auto m = b.call("mul", "aten::mul.Tensor", {Argument::ref(x), Argument::ref(y)}, {},
                          floats(rows));
    const auto a = b.call("add", "aten::add.Tensor", {Argument::ref(m), Argument::integer(1)}, {},
                          floats(rows));
    const auto r = b.call("relu", "aten::relu.default", {Argument::ref(a)}, {}, floats(rows));
    b.output({Argument::ref(r)});
    SmallRegion s{*b.build(), {m, a, r}, {}};
    exec::RunOptions o;
    o.keep = {"x", "y"};
    o.perNodeTiming = false;
    auto run = exec::Interpreter::run(*s.graph, o);
    if (!run || !run->ok) {
        s.graph.reset();
        return s;
    }
    s.eager = std::move(*run);
    return s;
}

inline std::unique_ptr<cache::CacheStore> openLocalStore(const std::string& dir)
{
    cache::StoreOptions so;
    so.path = dir + "/cache.db";
    auto s = cache::CacheStore::open(so);
    return s ? std::move(*s) : nullptr;
}

inline compile::RegionOutcome compileSmall(const SmallRegion& s, cache::CacheStore* store,
                                           remote::RemoteTier* tier)
{
    compile::CompileOptions o;
    o.store = store;
    o.remote = tier;
    o.timingRepeats = 1;
    compile::RegionCompiler rc(o);
    return rc.compileAndRun(*s.graph, {"r0", s.nodes, ""}, s.eager.kept);
}

} // namespace fxs::test
