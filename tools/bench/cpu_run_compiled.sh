#!/bin/bash
# The CPU engine with and without compiled regions: `fxscope-cli run` and `run --compiled --auto`
# of the GPT-12 and LLaMA-24 forward fixtures, ROUNDS interleaved rounds (default 3) of REPEAT
# timed runs each (default 10), medians with min-max of total_ms (and, for --compiled, of the
# eager run it makes next to it). The first --compiled run of each graph builds its regions
# (an empty cache in a folder of our own); the others hit.
# Usage: tools/bench/cpu_run_compiled.sh BUILD_DIR
set -eu
B=${1:?usage: cpu_run_compiled.sh BUILD_DIR}
CLI=$B/app/cli/fxscope-cli
ROUNDS=${ROUNDS:-3}
REPEAT=${REPEAT:-10}
W=$(mktemp -d "$HOME/.cache/fxscope-cpu-bench.XXXXXX") # mode 700: the cache accepts it
trap 'rm -rf "$W"' EXIT
F=tests/data/fixtures/graphs
G=tests/data/recorded/graphs
graphs=("$F/gpt12_train_fw.txt" "$G/llama24_train_graph0.txt.gz")
for r in $(seq "$ROUNDS"); do
  for g in "${graphs[@]}"; do
    n=$(basename "$g" | cut -d. -f1)
    "$CLI" run "$g" --device cpu --repeat "$REPEAT" --json > "$W/$n.plain.$r.json"
    "$CLI" run "$g" --device cpu --repeat "$REPEAT" --json --compiled --auto \
      --cache "$W/cache/cache.db" > "$W/$n.compiled.$r.json"
  done
done
python3 - "$W" "$ROUNDS" <<'PY'
import json, statistics, sys
w, rounds = sys.argv[1], int(sys.argv[2])
def med(xs):
    return "%.1f (%.1f-%.1f)" % (statistics.median(xs), min(xs), max(xs))
for n in ("gpt12_train_fw", "llama24_train_graph0"):
    load = lambda kind, r: json.load(open("%s/%s.%s.%d.json" % (w, n, kind, r)))
    plain = [load("plain", r)["total_ms"] for r in range(1, rounds + 1)]
    comp = [load("compiled", r) for r in range(1, rounds + 1)]
    c = [j["total_ms"] for j in comp[1:]] or [comp[0]["total_ms"]]
    e = [j["eager_total_ms"] for j in comp[1:]] or [comp[0]["eager_total_ms"]]
    print("%-22s run %s ms | run --compiled --auto %s ms (its eager run %s ms), "
          "%d of %d regions used" % (n, med(plain), med(c), med(e), comp[-1]["regions_used"],
                                     len(comp[-1]["regions"])))
PY
