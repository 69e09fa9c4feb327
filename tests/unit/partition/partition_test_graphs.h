// Small hand-built graphs shared by the partition tests, and a loader for fixture graphs.
#pragma once

#include "core/graph/graph_builder.h"
#include "core/io/graph_code_parser.h"
#include "core/util/file_reader.h"

#include <string>
#include <vector>

namespace fxs::partition::testing {

inline graph::TensorMeta f32(std::vector<std::int64_t> sizes, std::string device = "cuda:0")
{
    graph::TensorMeta m;
    m.dtype = graph::DType::Float32;
    for (auto s : sizes) {
        m.sizes.push_back(graph::SymInt::of(s));
    }
    m.device = graph::Device::parse(device);
    return m;
}

inline graph::Annotation inductor(std::string value)
{
    graph::Annotation a;
    a.text = "{'compile_with_inductor': " + value + "}";
    a.entries.emplace_back("compile_with_inductor", std::move(value));
    return a;
}

// A call node with a [4] float meta; `ann` empty means no annotation.
inline graph::NodeId op(graph::GraphBuilder& b, std::string name, std::string target,
                        std::vector<graph::NodeId> ins, std::string ann = {})
{
    std::vector<graph::Argument> args;
    for (auto id : ins) {
        args.push_back(graph::Argument::ref(id));
    }
    const auto id = b.call(std::move(name), std::move(target), std::move(args), {}, f32({4}));
    if (!ann.empty()) {
        b.node(id).annotation = inductor(std::move(ann));
    }
    return id;
}

inline std::vector<std::string> names(const graph::Graph& g, const std::vector<graph::NodeId>& ids)
{
    std::vector<std::string> out;
    for (auto id : ids) {
        out.push_back(g.node(id).name);
    }
    return out;
}

// p -> a -> x(mm) -> b with a -> b too, then b -> c -> d (pointwise) and e = mm(d, d). Node ids
// follow the enum; `a`+`b` in one region would close a -> x -> b.
enum ChainNode : graph::NodeId { kP, kA, kX, kB, kC, kD, kE };

inline graph::GraphPtr chainGraph()
{
    graph::GraphBuilder bld;
    const auto p = bld.placeholder("p", f32({4}));
    const auto a = op(bld, "a", "aten::sin.default", {p});
    const auto x = op(bld, "x", "aten::mm.default", {a, a});
    const auto b = op(bld, "b", "aten::mul.Tensor", {a, x});
    const auto c = op(bld, "c", "aten::relu.default", {b});
    const auto d = op(bld, "d", "aten::neg.default", {c});
    const auto e = op(bld, "e", "aten::mm.default", {d, d});
    bld.output({graph::Argument::ref(e)});
    return *bld.build();
}

struct Fixture {
    std::string text;
    graph::GraphPtr graph;
};

inline Fixture loadFixtureGraph(const std::string& file)
{
    const std::string path = std::string(FXSCOPE_TEST_DATA) + "/fixtures/graphs/" + file;
    Fixture f;
    auto text = readFile(path);
    if (!text) {
        return f;
    }
    f.text = *text;
    f.graph = io::parseGraphCode(f.text, path).graph;
    return f;
}

} // namespace fxs::partition::testing
