#!/bin/bash
# fxscope's compiled runs under several sets of `run` flags, side by side on the GPU machine:
# records the models' training graphs (model_inductor.py --record-only), then for ROUNDS
# interleaved rounds runs each variant of VARIANTS (';'-separated extra flags, after any
# NAME=value environment settings for fxscope's process; "" is the default) on each forward
# and backward (from its forward) with
# `run --compiled --auto --kernel-time`, without CUDA graphs (GRAPHS=1: with them), one cache.
# Prints per model and variant the medians (min-max) over rounds of a step's host time per node
# (host_ms / nodes_run: the host's work issuing the step, nothing waited for), kernel time,
# wall time and the floating outputs' largest error against fxscope's eager run, and the
# engine's notes (which products ran how), and where a variant's kernels (names and counts, from
# the first round) differ from the first variant's. Builds with every kernel listed
# (kernel_profile.h's table widened to 400, as kernel_table.sh).
# Usage, from the repository root: OUT=dir MODELS=llama24_train,gpt12_train GRAPHS=1 \
#   VARIANTS=';PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True' tools/bench/run_variants.sh
set -u
OUT=${OUT:-${1:-/tmp/run_variants}}
mkdir -p "$OUT"
MODELS=${MODELS:-llama24_train,gpt12_train}
VARIANTS=${VARIANTS:-;--cuda-tuning block=128}
ROUNDS=${ROUNDS:-3}
. tools/bench/record_graphs.sh # FXSCOPE_CLI, $OUT/graphs, W
IFS=';' read -r -a variants <<< "$VARIANTS"
[ "${#variants[@]}" -eq 0 ] && variants=("")
[[ "$VARIANTS" == *";" ]] && variants+=("")
run_rounds "${variants[@]}"
python3 - "$W" "$MODELS" "$ROUNDS" "${variants[@]}" <<'PY'
import statistics, sys
sys.path.insert(0, "tools/bench")
from variant_rounds import GENERATED, max_abs_err, med, step
w, models, rounds, variants = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3]), sys.argv[4:]
for m in models:
    print("\n## %s: a step (fw + bw), median (min-max) over %d rounds" % (m, rounds))
    print("| variant | host us a node | host ms | kernel ms | generated | library | wall ms | "
          "nodes | max abs err |")
    print("|---|---|---|---|---|---|---|---|---|")
    notes = {}
    kernels = {}
    for i, v in enumerate(variants):
        per, host, kern, wall, nodes, err, gen, lib = [], [], [], [], [], [], [], []
        for r in range(1, rounds + 1):
            parts = step(w, m, i, r, "host_ms", lambda why: print("%s %r %s" % (m, v, why)))
            if parts is None:
                continue
            h = k = t = g = e = 0.0
            n = 0
            for part, j in parts:
                h += j["host_ms"]
                k += j.get("kernel_ms") or 0.0
                t += j["total_ms"]
                n += j["nodes_run"]
                e = max(e, max_abs_err(j))
                for x in j.get("top_kernels") or []:
                    g += x["ms"] if GENERATED.match(x["name"]) else 0.0
                    if r == 1:
                        kernels.setdefault(i, {})[(part, x["name"])] = x["count"]
                notes[(v, part)] = j.get("notes", [])
            per.append(h * 1000 / max(1, n)); host.append(h); kern.append(k); wall.append(t)
            nodes.append(n); err.append(e); gen.append(g); lib.append(k - g)
        print("| %r | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            v, med(per, "%.3f"), med(host, "%.2f"), med(kern), med(gen), med(lib),
            med(wall, "%.3f"),
            "%d" % statistics.median(nodes) if nodes else "n/a",
            "%.3g" % max(err) if err else "n/a"))
    for i in range(1, len(variants)):
        a, b = kernels.get(0, {}), kernels.get(i, {})
        diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        print("kernels of %r against %r: %s" % (variants[i], variants[0],
                                                "the same %d (names, counts)" % len(a)
                                                if not diff else "%d differ" % len(diff)))
        for part, name in diff[:12]:
            print("  %s %s: %s against %s" % (part, name[:100], b.get((part, name)),
                                             a.get((part, name))))
    for (v, part), ns in sorted(notes.items()):
        print("notes %r %s: %s" % (v, part, " | ".join(ns)))
PY
rm -rf "$W" "$OUT/graphs"
git checkout -- core/compile/kernel_profile.h 2> /dev/null || true
