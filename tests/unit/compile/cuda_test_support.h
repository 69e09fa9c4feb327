// Helpers of the CUDA region tests: the benchmark's chain over tensors recorded on cuda:0 (the
// graph code form, so inputs carry the device in their meta), lowered as one region. Test code.
#pragma once

#include "core/graph/graph.h"
#include "core/io/graph_code_parser.h"

#include <string>
#include <vector>

namespace fxs::test {

struct CudaRegion {
    graph::GraphPtr graph;
    std::vector<graph::NodeId> nodes;
};

inline CudaRegion cudaChain(const std::string& type = "f32", int n = 4099)
{
    const std::string m = "\"" + type + "[" + std::to_string(n) + "][1]cuda:0\"";
    const std::string code = "def forward(self, x: " + m + ", y: " + m + "):\n"
        "    sin: " + m + " = torch.ops.aten.sin.default(x)\n"
        "    mul: " + m + " = torch.ops.aten.mul.Tensor(sin, y)\n"
        "    add: " + m + " = torch.ops.aten.add.Tensor(mul, 1.0)\n"
        "    relu: " + m + " = torch.ops.aten.relu.default(add)\n"
        "    exp: " + m + " = torch.ops.aten.exp.default(relu)\n"
        "    tanh: " + m + " = torch.ops.aten.tanh.default(y)\n"
        "    add_1: " + m + " = torch.ops.aten.add.Tensor(exp, tanh)\n"
        "    sigmoid: " + m + " = torch.ops.aten.sigmoid.default(add_1)\n"
        "    mul_1: " + m + " = torch.ops.aten.mul.Tensor(sigmoid, x)\n"
        "    return (mul_1,)\n";
    CudaRegion r;
    r.graph = io::parseGraphCode(code, "chain_cuda.txt").graph;
    for (graph::NodeId id = 0; r.graph && id < r.graph->size(); ++id) {
        if (r.graph->node(id).op == graph::OpKind::CallFunction) {
            r.nodes.push_back(id);
        }
    }
    return r;
}

} // namespace fxs::test
