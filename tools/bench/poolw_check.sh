#!/bin/bash
# ResNet-18 inference on the GPU machine after the weight layout cache and the max pool lowering
# (issue 27): the recorded graph (tests/data/fixtures/graphs/resnet18_infer.txt, batch 2) run
# compiled on CUDA in CUDA graphs with kernel times and without them, what each run reports about
# the two changes, then ResNet-18 against Inductor (model_vs_inductor.sh, batch 16).
# Expected: conv_weights {"converted": 0, "reused": 17} (17 of the 20 weights need a copy; the
# three 1x1 downsample weights are channels_last already), the stem region (bn, relu, max pool)
# one kernel, no max_pool2d kernel and one direct_copy (the image) among top_kernels,
# max_abs_err within the usual 1e-3.
# Usage, from the repository root: tools/bench/poolw_check.sh [OUTDIR]; FXSCOPE_CLI=path skips
# the build (torch_cli_env.sh), SKIP_INDUCTOR=1 skips step 2.
set -u
OUT=${OUT:-${1:-/tmp/poolw_check}}
mkdir -p "$OUT"
. tools/bench/torch_cli_env.sh # FXSCOPE_CLI, LD_LIBRARY_PATH, CUDA_CACHE_DISABLE=1
nvidia-smi -L
GRAPH=tests/data/fixtures/graphs/resnet18_infer.txt
CACHE=$(mktemp -d)/cache.db
show() { # the figures of one run --compiled --json
  python3 - "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
if not j.get("ok"):
    print("FAILED:", json.dumps(j.get("error", j.get("unsupported")))[:2000]); sys.exit(1)
print("conv_layout", j.get("conv_layout"), "conv_weights", j.get("conv_weights"))
print("kernel_ms", j.get("kernel_ms"), "eager_kernel_ms", j.get("eager_kernel_ms"),
      "device_ms", j.get("device_ms"), "kernel_events", j.get("kernel_events"))
print("regions", len(j["regions"]), "used", j["regions_used"], "kernels", j.get("kernels"))
stem = j["regions"][0]
print("first region", stem["id"], stem["state"], "kernels", stem["kernels"], stem["reason"][:200])
print("max_abs_err", max((o.get("max_abs_err") or 0) for o in j["outputs"]))
for k in j.get("top_kernels") or []:
    print("  top %.4f ms x%.0f %s" % (k["ms"], k["count"], k["name"][:100]))
for n in j.get("notes", []):
    if "convolution weights" in n:
        print("note:", n)
PY
}
echo "== 1a. CUDA graphs, kernel times"
"$FXSCOPE_CLI" run "$GRAPH" --compiled --auto --device cuda --cuda-graph --kernel-time \
  --repeat 20 --json --cache "$CACHE" > "$OUT/resnet18_graph.json"
show "$OUT/resnet18_graph.json"
echo "== 1b. without CUDA graphs (stream order)"
"$FXSCOPE_CLI" run "$GRAPH" --compiled --auto --device cuda --repeat 20 --json \
  --cache "$CACHE" > "$OUT/resnet18_stream.json"
show "$OUT/resnet18_stream.json"
if [ -z "${SKIP_INDUCTOR:-}" ]; then
  echo "== 2. ResNet-18 inference against Inductor"
  MODELS=resnet18_infer FXSCOPE_CLI="$FXSCOPE_CLI" tools/bench/model_vs_inductor.sh "$OUT/model"
fi
