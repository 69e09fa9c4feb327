// Helpers shared by the exec tests: tensor <-> handle, building one-op graphs, comparing.
#pragma once

#include "core/exec/interpreter.h"
#include "core/exec/torch_bridge.h"
#include "core/graph/graph_builder.h"

#include <ATen/ATen.h>

#include <memory>
#include <string>
#include <vector>

namespace fxs::exec::test {

inline graph::TensorMeta metaOf(graph::DType t, std::vector<std::int64_t> sizes)
{
    graph::TensorMeta m;
    m.dtype = t;
    for (auto s : sizes) {
        m.sizes.push_back(graph::SymInt::of(s));
    }
    return m;
}

inline std::shared_ptr<ValueStore> storeOf(
    const std::vector<std::pair<std::string, at::Tensor>>& values)
{
    auto store = std::make_shared<ValueStore>();
    for (const auto& [name, t] : values) {
        store->set(name, makeHandle(t));
    }
    return store;
}

inline at::Tensor outputTensor(const RunReport& r, int i)
{
    const auto* h = r.kept.find("output." + std::to_string(i));
    return h ? tensorOf(*h) : at::Tensor();
}

inline bool close(const at::Tensor& a, const at::Tensor& b, double tol = 1e-5)
{
    return a.defined() && b.defined() && a.sizes() == b.sizes() &&
           at::allclose(a.to(at::kDouble), b.to(at::kDouble), tol, tol);
}

} // namespace fxs::exec::test
