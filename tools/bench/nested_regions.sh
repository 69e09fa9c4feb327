#!/bin/bash
# fxscope's nested-region plan on the GPU machine: the 24-layer LLaMA-style model of the
# recorded llama24 fixture, one training step compiled by Inductor without and with the plan
# (tools/bench/nested_regions_llama24.plan.json, written by `fxscope-cli partition
# tests/data/recorded/traces/llama24.log.gz --graph 0 --nested ...` and applied by
# tools/python/fxscope_nested.py), each in its own process with a cold Inductor cache and its
# own TORCH_TRACE; outputs and gradients compared with eager; how often the decoder block was
# traced counted in each TORCH_TRACE; cold-compile seconds with and without.
# Usage, from the repository root on the GPU machine (PyTorch >= 2.8, transformers, one GPU):
#   OUT=dir bash tools/bench/nested_regions.sh        (about 2-3 minutes; summary in $OUT)
set -u
OUT=${OUT:-${1:-/tmp/nested_regions}}
S=$(cd "$(dirname "$0")" && pwd)
PLAN=${PLAN:-$S/nested_regions_llama24.plan.json}
rm -rf "$OUT/none" "$OUT/plan"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
python3 -c 'import torch, transformers, sys; print("torch", torch.__version__, "transformers",
  transformers.__version__, torch.cuda.get_device_name(0), "python", sys.version.split()[0])' \
  | tee "$OUT/versions.txt"
for mode in plan none; do
  echo "== $mode"; SECONDS=0
  mkdir -p "$OUT/$mode"
  TORCH_TRACE="$OUT/$mode/trace" TORCHINDUCTOR_CACHE_DIR="$OUT/$mode/inductor_cache" \
    timeout 150 python3 "$S/nested_regions.py" run --mode "$mode" --plan "$PLAN" \
    --out "$OUT/$mode" > "$OUT/$mode/log.txt" 2>&1
  echo "rc $? after ${SECONDS}s"; grep -vE "Warning|warnings.warn" "$OUT/$mode/log.txt" | tail -4
  rm -rf "$OUT/$mode/inductor_cache"
done
python3 "$S/nested_regions.py" summarize --out "$OUT"
