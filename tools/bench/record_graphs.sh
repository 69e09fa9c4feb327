# Sourced by the benchmarks that run fxscope on the models' recorded training graphs on the GPU
# machine (run_variants.sh, tuning_sweep.sh), from the repository root with OUT, MODELS and
# ROUNDS set: widens the kernel lists to 400 names (kernel_profile.h, as kernel_table.sh; put
# back by the caller), builds fxscope-cli-torch (torch_cli_env.sh), records MODELS' forward and
# backward graphs into $OUT/graphs (model_inductor.py --record-only), makes W, a private
# scratch folder for the runs' cache and outputs, and defines run_rounds.
sed -i "s/kTopKernels = [0-9]*/kTopKernels = 400/" core/compile/kernel_profile.h
. tools/bench/torch_cli_env.sh # FXSCOPE_CLI, LD_LIBRARY_PATH, CUDA_CACHE_DISABLE=1
python3 tools/bench/model_inductor.py --record-only --cli /bin/true --out "$OUT/graphs" \
  --models "$MODELS" > "$OUT/record.log" 2>&1 || { tail -20 "$OUT/record.log"; exit 1; }
W=$(mktemp -d)
chmod 700 "$W"

# run_rounds VARIANT...: ROUNDS interleaved rounds of every variant (extra `run` flags, after
# any NAME=value environment settings for fxscope's process; words split at spaces) on every
# model's forward and backward (from its forward; none for an inference model), each `run --compiled --auto --kernel-time
# --repeat 10` with one cache in W, `--cuda-graph` too when GRAPHS=1. Writes
# $W/MODEL.I.ROUND.fw.json and .bw.json (I: the variant's index; .err beside each: stderr;
# no .bw files for an inference model).
run_rounds() {
  local variants=("$@") r i m word fw bw
  local common=(--compiled --auto --device cuda --json --cache "$W/cache/cache.db" --repeat 10
                --kernel-time)
  [ "${GRAPHS:-0}" = 1 ] && common+=(--cuda-graph)
  for r in $(seq "$ROUNDS"); do
    for i in "${!variants[@]}"; do
      local envs=() flags=()
      for word in ${variants[$i]}; do
        if [[ "$word" =~ ^[A-Z_][A-Z0-9_]*= ]]; then envs+=("$word"); else flags+=("$word"); fi
      done
      for m in ${MODELS//,/ }; do
        fw=$OUT/graphs/${m}_graph0.txt
        bw=$OUT/graphs/${m}_graph1.txt
        env "${envs[@]}" "$FXSCOPE_CLI" run "$fw" "${common[@]}" "${flags[@]}" \
          > "$W/$m.$i.$r.fw.json" 2> "$W/$m.$i.$r.fw.err"
        [ -f "$bw" ] || continue # an inference model: its forward only
        env "${envs[@]}" "$FXSCOPE_CLI" run "$bw" --from-forward "$fw" "${common[@]}" \
          "${flags[@]}" > "$W/$m.$i.$r.bw.json" 2> "$W/$m.$i.$r.bw.err"
      done
    done
  done
}
