#!/bin/bash
# Truly cold compiles of whole models on the GPU machine, and where their time goes: each model's
# forward graph (recorded in this process by model_inductor.py --record-only) compiled with
# `compile --auto --device cuda` from an empty fxscope cache with CUDA_CACHE_DISABLE=1, the
# process timed from outside, then the same command again, every region a hit: ROUNDS rounds
# (default 3), each from an empty cache, medians with min-max. One more cold compile with
# --dump gives the regions' pass times, summed per pass.
# Usage, from the repository root: tools/bench/cold_compile.sh [OUTDIR]
#   MODELS=llama24_train,gpt12_train; FXSCOPE_CLI=path (fxscope-cli-torch) skips the build;
#   JOBS (default 0: the hardware threads, at most 8).
set -u
OUT=${OUT:-${1:-/tmp/cold_compile}}
mkdir -p "$OUT"
. tools/bench/torch_cli_env.sh # FXSCOPE_CLI, LD_LIBRARY_PATH, CUDA_CACHE_DISABLE=1
W=$HOME/.cache/fxscope-cold-bench # fxscope's cache needs a folder only we may write
rm -rf "$W"
mkdir -p -m 700 "$W"
nvidia-smi -L
MODELS=${MODELS:-llama24_train,gpt12_train}
python3 tools/bench/model_inductor.py --cli "$FXSCOPE_CLI" --out "$OUT" --models "$MODELS" \
  --record-only || exit 1
for m in ${MODELS//,/ }; do
  g=$OUT/${m}_graph0.txt
  for r in $(seq "${ROUNDS:-3}"); do
    c=$W/$m.$r
    mkdir -p -m 700 "$c"
    t0=$(date +%s.%N)
    "$FXSCOPE_CLI" compile "$g" --auto --device cuda --json --jobs "${JOBS:-0}" \
      --cache "$c/cache.db" > "$OUT/$m.cold.$r.json" 2> "$OUT/$m.cold.$r.err"
    t1=$(date +%s.%N)
    "$FXSCOPE_CLI" compile "$g" --auto --device cuda --json --cache "$c/cache.db" \
      > "$OUT/$m.hit.$r.json" 2> "$OUT/$m.hit.$r.err"
    t2=$(date +%s.%N)
    echo "$m $r $t0 $t1 $t2" >> "$OUT/times.txt"
  done
  mkdir -p -m 700 "$W/$m.dump"
  rm -rf "$OUT/dump.$m"
  "$FXSCOPE_CLI" compile "$g" --auto --device cuda --json --jobs "${JOBS:-0}" \
    --cache "$W/$m.dump/cache.db" --dump "$OUT/dump.$m" > "$OUT/$m.dump.json" 2>&1
done
python3 - "$OUT" <<'PY'
import collections, glob, json, os, statistics, sys
out = sys.argv[1]
def med(xs):
    return "%.2f (%.2f-%.2f)" % (statistics.median(xs), min(xs), max(xs))
rows = collections.defaultdict(list)
for line in open(os.path.join(out, "times.txt")):
    m, r, t0, t1, t2 = line.split()
    rows[m].append((r, float(t1) - float(t0), float(t2) - float(t1)))
for m, runs in rows.items():
    print("\n## %s forward: cold compile (CUDA_CACHE_DISABLE=1, empty cache)" % m)
    print("process: cold %s s, all hits %s s" % (med([x[1] for x in runs]),
                                                 med([x[2] for x in runs])))
    r = runs[-1][0]
    j = json.load(open(os.path.join(out, "%s.cold.%s.json" % (m, r))))
    h = json.load(open(os.path.join(out, "%s.hit.%s.json" % (m, r))))
    regs = j["regions"]
    states = collections.Counter(x["state"] for x in regs)
    print("regions %d (%s), distinct keys %d; hits: %s" % (
        len(regs), dict(states), len({x["key"] for x in regs if x.get("key")}),
        dict(collections.Counter(x["state"] for x in h["regions"]))))
    passes = collections.defaultdict(float)
    for f in glob.glob(os.path.join(out, "dump.%s" % m, "*.passes.txt")):
        for line in open(f):
            parts = line.split()
            if len(parts) == 3 and parts[2] == "ms":
                passes[parts[0]] += float(parts[1])
    print("summed over the regions (a cold compile with --dump), ms:")
    for k, v in sorted(passes.items(), key=lambda kv: -kv[1]):
        print("  %-14s %9.1f" % (k, v))
    slow = sorted(regs, key=lambda x: -x.get("compile_ms", 0))[:3]
    print("longest builds:", ", ".join("%s %d nodes %.0f ms" % (x["id"], x["nodes"],
                                                                 x.get("compile_ms", 0))
                                        for x in slow))
PY
