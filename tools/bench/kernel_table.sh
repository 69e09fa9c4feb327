#!/bin/bash
# Where a compiled step's GPU time goes, kernel by kernel, on the GPU machine: records the
# GPT-12 and LLaMA-24 training graphs (model_inductor.py --record-only), runs each forward and
# backward (from its forward) with `run --compiled --auto --cuda-graph --kernel-time` and keeps
# the JSON (regions with their states and kernels, top_kernels), plus each region's schedule,
# IR and source (--dump of `compile`, same cache: <model>_dump.tgz, fw/ and bw/). Build with
# TOP=400 to list every kernel rather than the longest 15 (the build then widens
# kernel_profile.h's table; the repository keeps 15); GRAPHS=0
# runs the steps without CUDA graphs (each kernel issued by the host, as torch.compile's default
# mode issues its own).
# Usage, from the repository root: OUT=dir MODELS=gpt12_train,llama24_train tools/bench/kernel_table.sh
set -u
OUT=${OUT:-${1:-/tmp/kernel_table}}
mkdir -p "$OUT"
if [ -n "${TOP:-}" ]; then
  sed -i "s/kTopKernels = [0-9]*/kTopKernels = $TOP/" core/compile/kernel_profile.h
fi
. tools/bench/torch_cli_env.sh # FXSCOPE_CLI, LD_LIBRARY_PATH, CUDA_CACHE_DISABLE=1
MODELS=${MODELS:-gpt12_train,llama24_train}
python3 tools/bench/model_inductor.py --record-only --cli /bin/true --out "$OUT/graphs" \
  --models "$MODELS" > "$OUT/record.log" 2>&1 || { tail -20 "$OUT/record.log"; exit 1; }
CACHE=$(mktemp -d)
chmod 700 "$CACHE"
common=(--compiled --auto --device cuda --json --cache "$CACHE/cache.db" --repeat 10
        --kernel-time)
[ "${GRAPHS:-1}" = 0 ] || common+=(--cuda-graph)
for m in ${MODELS//,/ }; do
  fw=$OUT/graphs/${m}_graph0.txt
  bw=$OUT/graphs/${m}_graph1.txt
  "$FXSCOPE_CLI" run "$fw" "${common[@]}" > "$OUT/${m}_fw.json" 2> "$OUT/${m}_fw.err"
  echo "$m forward exit $?"
  "$FXSCOPE_CLI" run "$bw" --from-forward "$fw" "${common[@]}" > "$OUT/${m}_bw.json" \
    2> "$OUT/${m}_bw.err"
  echo "$m backward exit $?"
  "$FXSCOPE_CLI" compile "$fw" --auto --device cuda --json --repeat 1 \
    --cache "$CACHE/cache.db" --dump "$OUT/${m}_dump/fw" > /dev/null 2>&1
  "$FXSCOPE_CLI" compile "$bw" --from-forward "$fw" --auto --device cuda --json --repeat 1 \
    --cache "$CACHE/cache.db" --dump "$OUT/${m}_dump/bw" > /dev/null 2>&1
  tar czf "$OUT/${m}_dump.tgz" -C "$OUT" "${m}_dump" && rm -rf "$OUT/${m}_dump"
  python3 - "$OUT/${m}_fw.json" "$OUT/${m}_bw.json" <<'PY'
import collections, json, sys
for path in sys.argv[1:]:
    try:
        d = json.load(open(path))
    except ValueError:
        print(path, "unreadable")
        continue
    regs = d.get("regions", [])
    states = collections.Counter((r["state"], r["reason"]) for r in regs)
    print(path.rsplit("/", 1)[-1], "kernel_ms", d.get("kernel_ms"), "events",
          d.get("kernel_events"), "eager", d.get("eager_kernel_ms"), "regions", len(regs),
          dict(states))
PY
done
rm -rf "$CACHE"
gzip -f "$OUT"/*.json
tar czf "$OUT/graphs.tgz" -C "$OUT" graphs && rm -rf "$OUT/graphs"
