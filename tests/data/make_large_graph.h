// Test-data generator: one large FX graph made by concatenating copies of fixture graphs with
// renamed nodes ("c3_mm_2") and per-copy source files ("/copy3/models.py"), so the result has
// file > scope nesting like a multi-module program. For benchmarks and tests of large views.
#pragma once

#include "core/graph/graph_builder.h"
#include "core/io/graph_code_parser.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fxs::testdata {

inline graph::GraphPtr loadGraphFile(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return io::parseGraphCode(text.str(), path).graph;
}

inline graph::Argument remapArgument(graph::Argument a, const std::vector<graph::NodeId>& map)
{
    if (a.kind == graph::ArgKind::Node) {
        a.node = map.at(a.node);
    }
    for (auto& item : a.items) {
        item = remapArgument(std::move(item), map);
    }
    return a;
}

// Appends copies of `parts` (cycling through them) until the graph has at least minNodes nodes;
// one output returns every copy's outputs. Returns null when a part is null.
inline graph::GraphPtr makeLargeGraph(const std::vector<graph::GraphPtr>& parts,
                                      std::size_t minNodes)
{
    graph::GraphBuilder b("LargeGraph");
    std::vector<graph::Argument> returned;
    for (int copy = 0; b.size() < minNodes; ++copy) {
        const graph::GraphPtr& part = parts.at(static_cast<std::size_t>(copy) % parts.size());
        if (!part) {
            return nullptr;
        }
        const std::string prefix = "c" + std::to_string(copy) + "_";
        std::vector<graph::NodeId> map(part->size(), graph::kNoNode);
        for (const graph::Node& n : part->nodes()) {
            if (n.isOutput()) {
                for (const auto& a : n.args) {
                    returned.push_back(remapArgument(a, map));
                }
                continue;
            }
            graph::Node c = n;
            c.name = prefix + n.name;
            if (c.isPlaceholder()) {
                c.target = c.name; // the parameter name, printed in the signature
            }
            c.inputs.clear();
            c.users.clear();
            c.multiOutput = false;
            c.getitemOf = graph::kNoNode;
            c.getitemIndex = -1;
            for (auto& a : c.args) {
                a = remapArgument(std::move(a), map);
            }
            for (auto& [key, a] : c.kwargs) {
                a = remapArgument(std::move(a), map);
            }
            if (c.source.known()) {
                const auto slash = c.source.file.find_last_of('/');
                c.source.file = "/copy" + std::to_string(copy) + "/" +
                                c.source.file.substr(slash == std::string::npos ? 0 : slash + 1);
            }
            map[n.id] = b.add(std::move(c));
        }
    }
    b.output({graph::Argument::tuple(std::move(returned))});
    auto built = b.build();
    return built.ok() ? *built : nullptr;
}

// A long chain of `length` call nodes on one [16, 64] float32 input: sin, mul(., x), add 1,
// relu, ... repeated; with mmEvery > 0 every mmEvery-th node is an mm with a weight instead
// (the code generator does not lower mm, so the chain falls into many regions). What a hostile
// long script looks like to the partitioner.
inline graph::GraphPtr makeChainGraph(std::size_t length, std::size_t mmEvery = 0)
{
    graph::TensorMeta m;
    m.dtype = graph::DType::Float32;
    m.sizes = {graph::SymInt::of(16), graph::SymInt::of(64)};
    graph::TensorMeta wm = m;
    wm.sizes = {graph::SymInt::of(64), graph::SymInt::of(64)};
    graph::GraphBuilder b("Chain");
    const graph::NodeId x = b.placeholder("x", m);
    const graph::NodeId w = b.placeholder("w", wm);
    graph::NodeId prev = x;
    static const char* const kOps[] = {"sin", "mul", "add", "relu"};
    for (std::size_t i = 0; i < length; ++i) {
        const std::string name = "n" + std::to_string(i);
        using graph::Argument;
        if (mmEvery > 0 && i % mmEvery == mmEvery - 1) {
            prev = b.call(name, "aten::mm.default", {Argument::ref(prev), Argument::ref(w)}, {}, m);
            continue;
        }
        const std::string op = kOps[i % 4];
        std::vector<Argument> args{Argument::ref(prev)};
        if (op == "mul") {
            args.push_back(Argument::ref(x));
        } else if (op == "add") {
            args.push_back(Argument::integer(1));
        }
        const std::string target = "aten::" + op + (args.size() > 1 ? ".Tensor" : ".default");
        prev = b.call(name, target, std::move(args), {}, m);
    }
    b.output({graph::Argument::ref(prev)});
    auto built = b.build();
    return built.ok() ? *built : nullptr;
}

} // namespace fxs::testdata
