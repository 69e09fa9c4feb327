# Sourced by the whole-model benchmarks on the GPU machine (model_vs_inductor.sh,
# cold_compile.sh), from the repository root with OUT set: FXSCOPE_CLI is fxscope-cli-torch,
# built against the PyTorch wheel's LibTorch as gpu_vs_inductor.sh builds it unless already
# given; the Debian libraries it links (build-exec-deps) are on LD_LIBRARY_PATH; compiles are
# truly cold (CUDA_CACHE_DISABLE=1: no driver compute cache).
if [ -z "${FXSCOPE_CLI:-}" ]; then
  BUILD_ONLY=1 OUT="$OUT" tools/bench/gpu_vs_inductor.sh || exit 1
  FXSCOPE_CLI=/tmp/fxb/app/cli/fxscope-cli-torch
fi
DEPS_LIB=$PWD/build-exec-deps/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=$DEPS_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CUDA_CACHE_DISABLE=1
