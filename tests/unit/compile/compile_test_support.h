// Helpers shared by the region compiler tests (tests/unit/compile): tensor meta for hand-built
// graphs, node references, a cache store in a temporary directory, and a generated chain of
// layers with weight gradients. Test code only.
#pragma once

#include "core/cache/cache_store.h"
#include "core/compile/region_compiler.h"
#include "core/graph/graph_builder.h"
#include "core/io/graph_code_parser.h"

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

// A backward-like chain of `layers` layers on one weight w: relu_0 = relu(g), then per layer i
// a weight gradient mm_w<i> = t(relu_i) @ x<i> that only the output reads (through t_w<i>)
// and the chain's product mm_c<i> = relu_i @ w, whose relu is relu_<i+1>. g is [rows, cols];
// t(relu_i), the weight gradients' left operands, are made by the graph (rows * cols floats
// each), their right operands x<i> [rows, 4] are inputs. Returns relu_<layers> and the t_w<i>.
// Tensors on `device` ("cpu", "cuda:0").
inline graph::GraphPtr layeredProducts(int layers, std::int64_t rows, std::int64_t cols,
                                       const std::string& device = "cpu")
{
    const auto f = [&](std::int64_t a, std::int64_t b, bool transposed) {
        const std::string strides = transposed ? "1, " + std::to_string(a)
                                               : std::to_string(b) + ", 1";
        return "\"f32[" + std::to_string(a) + ", " + std::to_string(b) + "][" + strides +
               "]" + device + "\"";
    };
    std::string sig = "g: " + f(rows, cols, false) + ", w: " + f(cols, cols, false);
    std::string body = "        relu_0: " + f(rows, cols, false) +
                       " = torch.ops.aten.relu.default(g)\n";
    std::string outs = "relu_" + std::to_string(layers);
    for (int i = 0; i < layers; ++i) {
        const std::string n = std::to_string(i);
        sig += ", x" + n + ": " + f(rows, 4, false);
        const auto line = [&](const std::string& name, const std::string& meta,
                              const std::string& call) {
            body += "        " + name + ": " + meta + " = torch.ops.aten." + call + "\n";
        };
        line("tg_" + n, f(cols, rows, true), "t.default(relu_" + n + ")");
        line("mm_w" + n, f(cols, 4, false), "mm.default(tg_" + n + ", x" + n + ")");
        line("t_w" + n, f(4, cols, true), "t.default(mm_w" + n + ")");
        line("mm_c" + n, f(rows, cols, false), "mm.default(relu_" + n + ", w)");
        line("relu_" + std::to_string(i + 1), f(rows, cols, false),
             "relu.default(mm_c" + n + ")");
        outs += ", t_w" + n;
    }
    const std::string text = "class GraphModule(torch.nn.Module):\n    def forward(self, " + sig +
                             "):\n" + body + "        return (" + outs + ")\n";
    return io::parseGraphCode(text, "layered.txt").graph;
}

} // namespace fxs::test
