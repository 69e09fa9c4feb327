#!/usr/bin/env python3
"""Writes a torch.export `.pt2` archive with one input x: f32[4] and a chain of N relu nodes
(issue 31: a 1M-node archive took 45 s and 3.2 GB to `inspect`). The program JSON is the one
tests/data/make_pt2_archive.h makes (schema 8.17, a stored zip), so the CLI can be timed on the
same input as bench_pt2_import. No torch needed.

    python3 tools/bench/make_big_pt2.py 1000000 /tmp/big.pt2
    /usr/bin/time -v build/app/cli/fxscope-cli inspect /tmp/big.pt2
"""
import sys
import zipfile

META = ('{"dtype": 7, "sizes": [{"as_int": 4}], "requires_grad": false, '
        '"device": {"type": "cpu", "index": null}, "strides": [{"as_int": 1}], '
        '"storage_offset": {"as_int": 0}, "layout": 7}')


def program_json(n):
    nodes, values, previous = [], ['"x": ' + META], "x"
    for i in range(n):
        name = "relu_%d" % i
        nodes.append('{"target": "torch.ops.aten.relu.default", "inputs": [{"name": "self", '
                     '"arg": {"as_tensor": {"name": "%s"}}, "kind": 1}], "outputs": '
                     '[{"as_tensor": {"name": "%s"}}], "metadata": {}, "name": "%s"}'
                     % (previous, name, name))
        values.append('"%s": %s' % (name, META))
        previous = name
    return ('{"schema_version": {"major": 8, "minor": 17}, "graph_module": {"graph": '
            '{"inputs": [{"as_tensor": {"name": "x"}}], "nodes": [' + ", ".join(nodes) +
            '], "outputs": [{"as_tensor": {"name": "%s"}}], "tensor_values": {' % previous +
            ", ".join(values) + '}}, "signature": {"input_specs": [{"user_input": {"arg": '
            '{"as_tensor": {"name": "x"}}}}], "output_specs": [{"user_output": {"arg": '
            '{"as_tensor": {"name": "%s"}}}}]}}}' % previous)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: make_big_pt2.py NODES OUT.pt2")
    with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_STORED) as z:
        z.writestr("model/models/model.json", program_json(int(sys.argv[1])))
        z.writestr("model/archive_format", "pt2")


if __name__ == "__main__":
    main()
