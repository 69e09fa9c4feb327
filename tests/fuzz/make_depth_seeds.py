#!/usr/bin/env python3
"""Writes the issue-31 seeds of the libFuzzer targets (deep nesting, integer edges): small inputs
just past each cap (nesting 300 > 200, chains 600 > 512), so the refusals are in the corpus
without megabyte files. Run from anywhere; rewrites tests/fuzz/seeds/<target>/issue31_*."""
import json
import os

SEEDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds")


def write(target, name, data):
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(SEEDS, target, "issue31_" + name), "wb") as f:
        f.write(data)


def deep(n, open_="[", close="]", inner="1"):
    return open_ * n + inner + close * n


def graph(dims, body="relu"):
    return ('class GraphModule(torch.nn.Module):\n'
            '    def forward(self, x: "f32[%s]"):\n'
            '        %s: "f32[4]" = torch.ops.aten.relu.default(x);  x = None\n'
            '        return (%s,)\n' % (dims, body, body))


def main():
    # graph code: nesting past kMaxNesting in a size and in a call, unary chains, integer edges
    write("fuzz_graph_code", "deep_size.py", graph(deep(300, "(", ")", "s0") + ", 4"))
    write("fuzz_graph_code", "deep_call.py",
          graph("4").replace("relu.default(x)", "relu.default(" + deep(300, "(", ")", "x") + ")"))
    write("fuzz_graph_code", "unary_chain.py", graph("- " * 300 + "s0" + ", 4"))
    write("fuzz_graph_code", "int_edges.py",
          graph("(-9223372036854775807 - 1) // -1, (-9223372036854775807 - 1) % -1, "
                "4 % (s0 - s0), 99999999999999999999, 2**63, -9223372036854775808"))
    # export JSON: a deep argument and integer edges in sizes and arguments
    base = json.load(open(os.path.join(SEEDS, "fuzz_export_json", "crafted.json")))
    text = json.dumps(base)
    write("fuzz_export_json", "deep_argument.json",
          text.replace('{"as_none": true}', '{"as_weird": ' + deep(300) + '}', 1))
    write("fuzz_export_json", "deep_root.json", deep(300, '{"a": ', "}", "1"))
    edges = text.replace('"min_val": 2', '"min_val": -9223372036854775808', 1)
    edges = edges.replace('"max_val": null', '"max_val": 99999999999999999999', 1)
    write("fuzz_export_json", "int_edges.json", edges)
    # JSON text (raw bytes also go to parseJson): past and at the cap, brackets in strings
    write("fuzz_json_text", "deep_arrays.bin", deep(300))
    write("fuzz_json_text", "at_cap.bin", deep(200))
    write("fuzz_json_text", "brackets_in_strings.bin",
          '{"a": "' + "[" * 300 + '", "b": "\\"' + "{" * 300 + '", "c": [[1]]}')
    # TORCH_TRACE: a compilation_metrics record nested past the cap, integer edges in ids
    metrics = open(os.path.join(SEEDS, "fuzz_torch_trace", "metrics.log")).read()
    write("fuzz_torch_trace", "metrics_deep.log",
          metrics.replace('"fail_reason": null', '"fail_reason": ' + deep(300), 1))
    write("fuzz_torch_trace", "int_edges.log",
          metrics.replace('"frame_id": 0', '"frame_id": 99999999999999999999', 1)
                 .replace('"compile_id": "0/0"', '"compile_id": "-9223372036854775808/0"', 1))


if __name__ == "__main__":
    main()
