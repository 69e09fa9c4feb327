# Sums `fxscope-cli run --json --host-times` outputs' per_node host times by op (target):
# python3 host_by_op.py NAME COMPILED.json [EAGER.json]. Prints ms and us a call per op, the
# heaviest first, the totals per node, and the part spent in library calls (matrix products,
# grouped ones too, convolutions, attention: cuBLAS, cuDNN and attention kernels' own host
# work, which Inductor's extern calls make too) against the rest, a node.
import collections
import json
import re
import sys

LIBRARY = re.compile(r"aten::(mm|addmm|bmm|baddbmm|convolution|_convolution|cudnn_convolution"
                     r"|convolution_backward|_scaled_dot_product\w*|_efficient_attention\w*"
                     r"|_flash_attention\w*)\.|fxscope\.mm_group|fxscope\.conv_epilogue")


def table(path, label):
    j = json.load(open(path))
    rows = j.get("compiled_per_node") or j.get("per_node") or []
    by = collections.defaultdict(lambda: [0, 0.0])
    for n in rows:
        by[n["target"]][0] += 1
        by[n["target"]][1] += n["ms"]
    total = sum(v[1] for v in by.values())
    nodes = max(1, j.get("nodes_run", 0))
    print("%s %s: %d steps, %.3f ms host in steps (%.2f us a graph node over %d nodes), host_ms %s"
          % (sys.argv[1], label, len(rows), total, 1000 * total / nodes, nodes, j.get("host_ms")))
    for t, (c, ms) in sorted(by.items(), key=lambda kv: -kv[1][1])[:25]:
        print("  %-58s %5d  %8.3f ms  %7.2f us a call" % (t, c, ms, 1000 * ms / max(1, c)))
    calls = sum(v[0] for t, v in by.items() if LIBRARY.match(t))
    lib = sum(v[1] for t, v in by.items() if LIBRARY.match(t))
    print("%s %s: library calls %d, %.3f ms (%.2f us a call); the rest %.3f ms, %.2f us a node "
          "over the other %d nodes" % (sys.argv[1], label, calls, lib, 1000 * lib / max(1, calls),
                                      total - lib, 1000 * (total - lib) / max(1, nodes - calls),
                                      nodes - calls))


table(sys.argv[2], "compiled")
if len(sys.argv) > 3:
    table(sys.argv[3], "eager engine")
