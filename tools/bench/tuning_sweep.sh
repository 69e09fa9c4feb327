#!/bin/bash
# The generated kernels' launch parameters against their GPU time on the GPU machine: records
# the models' training graphs (model_inductor.py --record-only), then for each tuning in
# TUNINGS (';'-separated `--cuda-tuning` values; the first is the default) runs each forward and
# backward (from its forward) with `run --compiled --auto --cuda-graph --kernel-time`, ROUNDS
# interleaved rounds, one cache (the tuning is part of every key). Prints per tuning the
# median over rounds of the step's kernel time, and of the generated kernels' time by form
# (pw, row, col: the kernel names, codegen::describeKernel), with min-max.
# Builds with every kernel listed (kernel_profile.h's table widened to 400, as kernel_table.sh).
# Usage, from the repository root: OUT=dir MODELS=llama24_train tools/bench/tuning_sweep.sh
set -u
OUT=${OUT:-${1:-/tmp/tuning_sweep}}
mkdir -p "$OUT"
MODELS=${MODELS:-llama24_train}
TUNINGS=${TUNINGS:-block=256 unroll=1 row_elements=8;block=128;block=64;row_block=64;block=64 row_block=64}
ROUNDS=${ROUNDS:-2}
. tools/bench/record_graphs.sh # FXSCOPE_CLI, $OUT/graphs, W
IFS=';' read -r -a tunings <<< "$TUNINGS"
variants=()
for t in "${tunings[@]}"; do
  variants+=("--cuda-tuning=${t// /,}") # one word: CudaTuning reads commas as spaces
done
GRAPHS=1 run_rounds "${variants[@]}"
python3 - "$W" "$MODELS" "$ROUNDS" "$TUNINGS" <<'PY'
import statistics, sys
sys.path.insert(0, "tools/bench")
from variant_rounds import GENERATED, max_abs_err, med, step
w, models, rounds, tunings = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3]), \
    sys.argv[4].split(";")
for m in models:
    print("\n## %s: ms a step (fw + bw), median (min-max) over %d rounds" % (m, rounds))
    print("| tuning | kernel ms | generated ms | pw | row | col | generated launches | max abs err |")
    print("|---|---|---|---|---|---|---|---|")
    for i, t in enumerate(tunings):
        tot, gen, launches, err = [], [], [], []
        form = {"pw": [], "row": [], "col": []}
        for r in range(1, rounds + 1):
            parts = step(w, m, i, r, "kernel_ms")
            if parts is None:
                continue
            s, g, n, e = 0.0, 0.0, 0.0, 0.0
            f = {k: 0.0 for k in form}
            for _, j in parts:
                s += j["kernel_ms"]
                e = max(e, max_abs_err(j))
                for k in j.get("top_kernels") or []:
                    mm = GENERATED.match(k["name"])
                    if mm:
                        g += k["ms"]
                        n += k["count"]
                        f[mm.group(1)] += k["ms"]
            tot.append(s); gen.append(g); launches.append(n); err.append(e)
            for k in form:
                form[k].append(f[k])
        print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            t, med(tot), med(gen), med(form["pw"]), med(form["row"]), med(form["col"]),
            "%.0f" % statistics.median(launches) if launches else "n/a",
            "%.3g" % max(err) if err else "n/a"))
PY
for m in ${MODELS//,/ }; do # the default tuning's kernel lists, for a look kernel by kernel
  gzip -c "$W/$m.0.$ROUNDS.fw.json" > "$OUT/$m.fw.json.gz" 2> /dev/null
  gzip -c "$W/$m.0.$ROUNDS.bw.json" > "$OUT/$m.bw.json.gz" 2> /dev/null
done
rm -rf "$W" "$OUT/graphs"
git checkout -- core/compile/kernel_profile.h 2> /dev/null || true
