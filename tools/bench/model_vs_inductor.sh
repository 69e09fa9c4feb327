#!/bin/bash
# Whole models: fxscope's `run --compiled` next to PyTorch eager and torch.compile (default and
# mode="reduce-overhead") on the GPU machine: a 12-layer GPT and a 24-layer LLaMA training step
# (forward + backward) and ResNet-18 inference, interleaved rounds, medians and spread, the card
# named (tools/bench/model_inductor.py says what is timed and how). Builds fxscope-cli-torch as
# gpu_vs_inductor.sh does. Cold compiles are truly cold: CUDA_CACHE_DISABLE=1, an empty fxscope
# cache, empty Inductor and Triton caches.
# Usage, from the repository root: tools/bench/model_vs_inductor.sh [OUTDIR]
#   MODELS=gpt12_train,llama24_train,resnet18_infer ROUNDS=3 STEPS=20 tune the runs; PHASES=1
#   prints when each timed part begins and ends (model_inductor.py --phases);
#   FXSCOPE_CLI=path (fxscope-cli-torch) skips the build.
set -u
OUT=${OUT:-${1:-/tmp/model_vs_inductor}}
mkdir -p "$OUT"
. tools/bench/torch_cli_env.sh # FXSCOPE_CLI, LD_LIBRARY_PATH, CUDA_CACHE_DISABLE=1
W=$HOME/.cache/fxscope-model-bench # the caches (fxscope's needs a folder only we may write)
export TORCHINDUCTOR_CACHE_DIR=$W/inductor TRITON_CACHE_DIR=$W/triton
CACHE_ROOT=$W/fxscope
rm -rf "$TORCHINDUCTOR_CACHE_DIR" "$TRITON_CACHE_DIR" "$CACHE_ROOT"
mkdir -p -m 700 "$W" "$CACHE_ROOT"
nvidia-smi -L
python3 tools/bench/model_inductor.py --cli "$FXSCOPE_CLI" --out "$OUT" --cache-root "$CACHE_ROOT" \
  --models "${MODELS:-gpt12_train,llama24_train,resnet18_infer}" --rounds "${ROUNDS:-3}" \
  --steps "${STEPS:-20}" ${PHASES:+--phases}
