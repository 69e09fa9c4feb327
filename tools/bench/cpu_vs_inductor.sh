#!/bin/bash
# fxscope's region compiler next to Inductor on the GPU machine's CPU, at the same thread counts:
# builds fxscope-cli against the PyTorch wheel's LibTorch (Debian dev packages carried in
# build-exec-deps, as build-exec-deps/gpu_run.sh does), compiles and times the issue's two
# benchmark expressions (tools/bench/{chain8,softmax_ln}_16m.txt, 16M float32; chain8_f64 in
# float64, fxscope only) at 16 and 2 threads, runs tools/bench/perf.py (a copy of shared/tools/record-fixtures/perf.py: Inductor on
# the same expressions and sizes; its CUDA row is dropped) and prints both with the ratio.
# Usage, from the repository root: tools/bench/cpu_vs_inductor.sh [OUTDIR]
#   FXSCOPE_CLI=path skips the build (e.g. a local build, to try the script).
set -u
OUT=${OUT:-${1:-/tmp/cpu_vs_inductor}}
mkdir -p "$OUT"
CLI=${FXSCOPE_CLI:-}
if [ -z "$CLI" ]; then
  D=$PWD/build-exec-deps
  export PATH=$PATH:$D/bin
  export PKG_CONFIG_PATH=$D/usr/lib/x86_64-linux-gnu/pkgconfig:$D/usr/share/pkgconfig
  export PKG_CONFIG_SYSROOT_DIR=$D
  export LD_LIBRARY_PATH=$D/usr/lib/x86_64-linux-gnu
  TD=$(python3 -c 'import torch.utils;print(torch.utils.cmake_prefix_path)')/Torch
  B=/tmp/fxb
  cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DFXSCOPE_BUILD_GUI=OFF \
    -DFXSCOPE_WITH_GRAPHVIZ=OFF -DFXSCOPE_BUILD_TESTS=OFF -DFXSCOPE_BUILD_FUZZERS=OFF \
    -DFXSCOPE_BUILD_BENCHMARKS=OFF -DFXSCOPE_ENABLE_CUDA=OFF -DTorch_DIR=$TD \
    -DCMAKE_PREFIX_PATH=$D/usr -DOPENSSL_ROOT_DIR=$D/usr \
    -DCMAKE_CXX_FLAGS="-I$D/usr/include/x86_64-linux-gnu" \
    -DCMAKE_EXE_LINKER_FLAGS="-Wl,--no-as-needed" > "$OUT/configure.log" 2>&1 \
    || { tail -40 "$OUT/configure.log"; exit 1; }
  SECONDS=0
  cmake --build $B -j"$(nproc)" --target fxscope-cli > "$OUT/build.log" 2>&1 \
    || { grep -E "error|FAILED" -A3 "$OUT/build.log" | head -60; exit 1; }
  echo "fxscope-cli built in ${SECONDS}s"
  CLI=$B/app/cli/fxscope-cli
fi
lscpu | grep -E "Model name|^CPU\(s\)" | tr -s ' '
# At 2 threads both sides are also pinned to two cores (taskset), so neither can use more.
pin() { [ "$1" = 2 ] && echo "taskset -c 0,1"; }
for t in 16 2; do
  for g in chain8 chain8_f64 softmax_ln; do
    # One untimed warm-up, then 10 timed runs per side (eager and compiled), as compile does.
    OMP_NUM_THREADS=$t $(pin $t) "$CLI" compile "tools/bench/${g}_16m.txt" --auto \
      --cache "$OUT/cache/cache.db" --json --repeat 10 > "$OUT/fx_${g}_$t.json" 2> "$OUT/fx_${g}_$t.err" \
      || { echo "fxscope compile $g at $t threads failed:"; tail -5 "$OUT/fx_${g}_$t.err"; }
  done
done
if [ -z "${SKIP_INDUCTOR:-}" ]; then
  # One process per thread count, each with a fresh Inductor cache: a kernel compiled for 16
  # threads must not be reused for the 2-thread row.
  : > "$OUT/perf.txt"
  for t in 16 2; do
    sed -e "s/((\"cuda\", None, 1 << 26), (\"cpu\", 16, 1 << 24), (\"cpu\", 2, 1 << 24))/((\"cpu\", $t, 1 << 24),)/" \
      tools/bench/perf.py > "$OUT/perf_cpu_$t.py"
    grep -q "((\"cpu\", $t, 1 << 24),)" "$OUT/perf_cpu_$t.py" || { echo "perf.py changed: cannot pick rows"; break; }
    TORCHINDUCTOR_CACHE_DIR=$(mktemp -d) OMP_NUM_THREADS=$t $(pin $t) python3 "$OUT/perf_cpu_$t.py" \
      >> "$OUT/perf.txt" 2>> "$OUT/perf.err" || tail -20 "$OUT/perf.err"
  done
fi
python3 - "$OUT" <<'PY'
import json, os, sys
d = sys.argv[1]
ind = {}
if os.path.exists(os.path.join(d, "perf.txt")):
    for line in open(os.path.join(d, "perf.txt")):
        if line.startswith("PERF "):
            r = json.loads(line[5:])
            ind[(r["graph"], r["threads"])] = r
print("%-11s %3s  %12s %12s  %12s %12s  %s" % ("graph", "thr", "fx eager ms", "fx comp ms",
      "torch eager", "inductor ms", "fxscope speed / inductor speed"))
for t in (16, 2):
    for g in ("chain8", "softmax_ln"):
        try:
            r = json.load(open(os.path.join(d, "fx_%s_%d.json" % (g, t))))["regions"][0]
        except Exception as e:
            print("%-11s %3d  no fxscope result (%s)" % (g, t, e)); continue
        i = ind.get((g, t))
        ratio = "%.2f" % (i["inductor_ms"] / r["compiled_ms"]) if i else "n/a"
        print("%-11s %3d  %12.2f %12.2f  %12s %12s  %s   [%s]" % (g, t, r["eager_ms"], r["compiled_ms"],
              "%.2f" % i["eager_ms"] if i else "-", "%.2f" % i["inductor_ms"] if i else "-", ratio,
              r["state"]))
PY
