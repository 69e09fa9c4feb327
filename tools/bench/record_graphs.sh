# Sourced by the benchmarks that run fxscope on the models' recorded training graphs on the GPU
# machine (run_variants.sh, tuning_sweep.sh), from the repository root with OUT and MODELS set:
# widens the kernel lists to 400 names (kernel_profile.h, as kernel_table.sh; put back by the
# caller), builds fxscope-cli-torch (torch_cli_env.sh), records MODELS' forward and backward
# graphs into $OUT/graphs (model_inductor.py --record-only), and makes W, a private scratch
# folder for the runs' cache and outputs.
sed -i "s/kTopKernels = [0-9]*/kTopKernels = 400/" core/compile/kernel_profile.h
. tools/bench/torch_cli_env.sh # FXSCOPE_CLI, LD_LIBRARY_PATH, CUDA_CACHE_DISABLE=1
python3 tools/bench/model_inductor.py --record-only --cli /bin/true --out "$OUT/graphs" \
  --models "$MODELS" > "$OUT/record.log" 2>&1 || { tail -20 "$OUT/record.log"; exit 1; }
W=$(mktemp -d)
chmod 700 "$W"
