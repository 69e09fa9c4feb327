#!/bin/bash
# Where the host time of a compiled run without CUDA graphs goes, on the GPU machine: records the
# models' graphs (model_inductor.py --record-only), then runs `run --compiled --auto --device cuda`
# (no --cuda-graph: every node issued by the host) under `perf record` when perf is installed and
# prints the heaviest shared objects and symbols; always prints host_ms per node for the compiled
# run and the eager engine's run, by op, and the library calls' share (host_by_op.py); a training
# step's backward (its forward feeding it) is run compiled too.
# Usage, from the repository root: OUT=dir MODELS=gpt12_train,resnet18_infer tools/bench/host_profile.sh
set -u
OUT=${OUT:-${1:-/tmp/host_profile}}
mkdir -p "$OUT"
. tools/bench/torch_cli_env.sh # FXSCOPE_CLI, LD_LIBRARY_PATH, CUDA_CACHE_DISABLE=1
W=$HOME/.cache/fxscope-host-profile
rm -rf "$W"
mkdir -p -m 700 "$W"
python3 tools/bench/model_inductor.py --cli "$FXSCOPE_CLI" --out "$OUT" --record-only \
  --models "${MODELS:-gpt12_train,resnet18_infer}" > "$OUT/record.log" 2>&1 || tail "$OUT/record.log"
for g in "$OUT"/*_graph0.txt; do
  name=$(basename "$g" _graph0.txt)
  # Warm the cache (compiles, verifies, decides), then time hits only, per node on the host.
  "$FXSCOPE_CLI" run "$g" --compiled --auto --device cuda --json --cache "$W/c.db" \
    --repeat 5 > "$OUT/$name.warm.json" 2> "$OUT/$name.warm.err"
  "$FXSCOPE_CLI" run "$g" --compiled --auto --device cuda --json --cache "$W/c.db" \
    --repeat 50 --host-times > "$OUT/$name.json" 2> "$OUT/$name.err"
  "$FXSCOPE_CLI" run "$g" --device cuda --json --repeat 50 --host-times \
    > "$OUT/$name.eager.json" 2> "$OUT/$name.eager.err"
  python3 tools/bench/host_by_op.py "$name" "$OUT/$name.json" "$OUT/$name.eager.json"
  bw=$OUT/${name}_graph1.txt
  if [ -f "$bw" ]; then # a training step's backward, fed by its forward
    "$FXSCOPE_CLI" run "$bw" --from-forward "$g" --compiled --auto --device cuda --json \
      --cache "$W/c.db" --repeat 5 > "$OUT/$name.bw.warm.json" 2> "$OUT/$name.bw.warm.err"
    "$FXSCOPE_CLI" run "$bw" --from-forward "$g" --compiled --auto --device cuda --json \
      --cache "$W/c.db" --repeat 50 --host-times > "$OUT/$name.bw.json" 2> "$OUT/$name.bw.err"
    python3 tools/bench/host_by_op.py "$name backward" "$OUT/$name.bw.json"
  fi
  if command -v perf > /dev/null; then
    perf record -F 4999 -g -o "$OUT/$name.perf" -- "$FXSCOPE_CLI" run "$g" --compiled \
      --auto --device cuda --json --cache "$W/c.db" --repeat 200 > /dev/null 2>&1
    perf report -i "$OUT/$name.perf" --no-children --sort dso --stdio 2>/dev/null | head -30
  fi
done
