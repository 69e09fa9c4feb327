#!/bin/bash
# Column reductions (reductions over leading dims, loop_ir.h: Kernel::columns) on the GPU
# machine: what a CPU-only box cannot run. From the repository root, with OUT set or given:
# tools/bench/colred_check.sh [OUTDIR]. Builds fxscope-cli-torch as the whole-model benchmarks do
# (FXSCOPE_CLI=path skips that).
#  1. the gpu-labelled tests, among them tst_cuda_run's columnReductionsMatchEagerOnTheGpu (the
#     column kernels of tests/unit/codegen/cuda_cases.h against eager on cuda:0, twice, so the
#     split kernels' counters are seen reset) — needs a build dir with the tests
#     (BUILD=dir: gpu_tests.sh makes one, /tmp/fxt);
#  2. the GPT-12 backward compiled with --auto on CUDA, fed by its forward (every region
#     verified against eager): its 49 bias-gradient sums and 25 layer norm backwards are in
#     regions; no region may fall back for a mismatch;
#  3. the whole-model kernel time of GPT-12 and LLaMA-24 training steps against Inductor
#     (model_vs_inductor.sh), the figure this work is for.
set -u
OUT=${OUT:-${1:-/tmp/colred_check}}
mkdir -p "$OUT"
if [ -n "${BUILD:-}" ]; then
  ctest --test-dir "$BUILD" -L gpu -R tst_cuda_run --output-on-failure 2>&1 | tee "$OUT/gpu_tests.log"
fi
. tools/bench/torch_cli_env.sh # FXSCOPE_CLI, LD_LIBRARY_PATH, CUDA_CACHE_DISABLE=1
G=../shared/fixtures/graphs
[ -d "$G" ] || G=/work/shared/fixtures/graphs
CACHE=$(mktemp -d)
"$FXSCOPE_CLI" compile "$G/gpt12_train_bw.txt" --from-forward "$G/gpt12_train_fw.txt" --auto \
  --device cuda --json --cache "$CACHE/cache.db" --dump "$OUT/dump" > "$OUT/gpt12_bw_cuda.json"
echo "compile exit $?"
python3 - "$OUT/gpt12_bw_cuda.json" <<'PY'
import collections, json, sys
d = json.load(open(sys.argv[1]))
regs = d["regions"]
states = collections.Counter((r["state"], r["reason"]) for r in regs)
print("regions", len(regs), "kernels", sum(r["kernels"] for r in regs))
for k, v in sorted(states.items()):
    print(f"  {v:4d} {k[0]} {k[1]}")
bad = [r for r in regs if r["state"] == "fallback" and r["reason"] != "slower_than_eager"]
for r in bad:
    print("BAD", r["id"], r["headline"])
print("total compiled ms", d.get("total_compiled_ms"), "eager ms", d.get("total_eager_ms"))
sys.exit(1 if bad else 0)
PY
echo "check exit $?"
grep -l "column reduction" "$OUT"/dump/*.cu | wc -l | sed 's/^/regions with column kernels: /'
MODELS=${MODELS:-gpt12_train,llama24_train} ROUNDS=${ROUNDS:-3} OUT="$OUT/models" \
  tools/bench/model_vs_inductor.sh
