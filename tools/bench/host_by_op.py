# Sums `fxscope-cli run --json --host-times` outputs' per_node host times by op (target):
# python3 host_by_op.py NAME COMPILED.json [EAGER.json]. Prints ms and us a call per op, the
# heaviest first, and the totals per node.
import collections
import json
import sys


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


table(sys.argv[2], "compiled")
if len(sys.argv) > 3:
    table(sys.argv[3], "eager engine")
