#!/bin/bash
# fxscope's CUDA region compiler next to Inductor on the GPU machine: builds fxscope-cli against
# the PyTorch wheel's LibTorch (Debian dev packages carried in build-exec-deps, as
# cpu_vs_inductor.sh does), checks the CUDA path end to end (a --no-run build without running,
# the hit that verifies it, the GPT-style fixtures' regions compiled vs eager on CUDA), then runs
# tools/bench/gpu_inductor.py: chain8 and softmax+layer_norm at 16M and 64M elements in float32
# and bfloat16, fxscope and Inductor interleaved for ROUNDS rounds, medians and spread, the
# device named. Inductor is static-shape (a fresh function per configuration, dynamic=False),
# both sides are compared on back-to-back CUDA-event times, and cold compiles are truly cold
# (CUDA_CACHE_DISABLE=1, empty Inductor and Triton caches): see gpu_inductor.py.
# Usage, from the repository root: tools/bench/gpu_vs_inductor.sh [OUTDIR]
#   FXSCOPE_CLI=path skips the build; BUILD_ONLY=1 stops after it; ROUNDS (default 3) and
#   REPEAT (default 50) tune the runs.
set -u
OUT=${OUT:-${1:-/tmp/gpu_vs_inductor}}
mkdir -p "$OUT"
CLI=${FXSCOPE_CLI:-}
D=$PWD/build-exec-deps
export PATH=$PATH:$D/bin
export LD_LIBRARY_PATH=$D/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if [ -z "$CLI" ]; then
  export PKG_CONFIG_PATH=$D/usr/lib/x86_64-linux-gnu/pkgconfig:$D/usr/share/pkgconfig
  export PKG_CONFIG_SYSROOT_DIR=$D
  TD=$(python3 -c 'import torch.utils;print(torch.utils.cmake_prefix_path)')/Torch
  B=/tmp/fxb
  cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DFXSCOPE_BUILD_GUI=OFF \
    -DFXSCOPE_WITH_GRAPHVIZ=OFF -DFXSCOPE_BUILD_TESTS=OFF -DFXSCOPE_BUILD_FUZZERS=OFF \
    -DFXSCOPE_BUILD_BENCHMARKS=OFF -DFXSCOPE_ENABLE_CUDA=AUTO -DTorch_DIR=$TD \
    -DCMAKE_PREFIX_PATH=$D/usr -DOPENSSL_ROOT_DIR=$D/usr \
    -DCMAKE_CXX_FLAGS="-I$D/usr/include/x86_64-linux-gnu" \
    -DCMAKE_EXE_LINKER_FLAGS="-Wl,--no-as-needed" > "$OUT/configure.log" 2>&1 \
    || { tail -40 "$OUT/configure.log"; exit 1; }
  grep "fxscope:" "$OUT/configure.log"
  SECONDS=0
  cmake --build $B -j"$(nproc)" --target fxscope-cli fxscope-cli-torch > "$OUT/build.log" 2>&1 \
    || { grep -E "error|FAILED" -A3 "$OUT/build.log" | head -60; exit 1; }
  echo "fxscope-cli built in ${SECONDS}s"
  CLI=$B/app/cli/fxscope-cli
fi
[ -n "${BUILD_ONLY:-}" ] && exit 0
export CUDA_CACHE_DISABLE=1 # compile_ms of a miss is NVRTC's and the driver's, not a cache's
nvidia-smi -L
G=tools/bench
C="$OUT/checks"
mkdir -p "$C"
# A build without running: generate + NVRTC, stored unverified; the next run hits and verifies.
sed -e 's/f32\[16777216\]\[1\]cpu/f32[16777216][1]cuda:0/g' $G/chain8_16m.txt > "$C/chain8_cuda.txt"
"$CLI" compile "$C/chain8_cuda.txt" --auto --device cuda --no-run --cache "$C/cache/cache.db" --json \
  > "$C/norun.json" 2> "$C/norun.err"; echo "no-run exit $?"
"$CLI" compile "$C/chain8_cuda.txt" --auto --device cuda --cache "$C/cache/cache.db" --json \
  > "$C/after_norun.json" 2> "$C/after_norun.err"; echo "run after no-run exit $?"
"$CLI" cache --cache "$C/cache/cache.db" ls > "$C/ls.json" 2>&1
python3 - "$C" <<'PY'
import json, sys
d = sys.argv[1]
for f in ("norun", "after_norun"):
    try:
        r = json.load(open("%s/%s.json" % (d, f)))["regions"][0]
        print("%-12s state=%s target=%s compile_ms=%.1f compiled_ms=%.4f err=%.2g | %s" % (
            f, r["state"], r.get("target"), r["compile_ms"], r["compiled_ms"], r["max_abs_err"], r["headline"]))
    except Exception as e:
        print(f, "unreadable:", e, open("%s/%s.err" % (d, f)).read()[-1500:])
try:
    print("cache entry status:", [e["status"] for e in json.load(open(d + "/ls.json"))["entries"]])
except Exception as e:
    print("cache ls unreadable", e)
PY
# The GPT-style fixtures' regions (annotations; the automatic proposal) on CUDA vs eager.
F=tests/data/fixtures/graphs
for spec in "gpt2_annotated_fw.txt:" "gpt12_train_fw.txt:--auto"; do
  g=${spec%%:*}; sel=${spec#*:}
  "$CLI" compile "$F/$g" $sel --device cuda --cache "$C/gpt/cache.db" --json --repeat 20 \
    > "$C/${g%.txt}.json" 2> "$C/${g%.txt}.err" || tail -5 "$C/${g%.txt}.err"
  "$CLI" compile "$F/$g" $sel --device cuda --cache "$C/gpt/cache.db" --json --repeat 20 \
    > "$C/${g%.txt}_hit.json" 2>> "$C/${g%.txt}.err"
done
python3 - "$C" <<'PY'
import json, sys, collections
d = sys.argv[1]
for g in ("gpt2_annotated_fw", "gpt12_train_fw"):
    for suffix in ("", "_hit"):
        try:
            j = json.load(open("%s/%s%s.json" % (d, g, suffix)))
        except Exception as e:
            print(g + suffix, "unreadable:", e); continue
        rs = j["regions"]
        states = collections.Counter(r["state"] for r in rs)
        fall = [r["headline"] for r in rs if r["state"] == "fallback"][:3]
        cm = [r["compile_ms"] for r in rs if r["state"] in ("miss", "hit")]
        print("%-22s %s regions %s, eager %.3f ms, compiled %.3f ms, compile_ms max %.1f median %.1f" % (
            g + suffix, len(rs), dict(states), j["total_eager_ms"], j["total_compiled_ms"],
            max(cm) if cm else 0, sorted(cm)[len(cm) // 2] if cm else 0))
        for h in fall:
            print("    fallback:", h[:200])
PY
python3 $G/gpu_inductor.py "$CLI" "$OUT" "${ROUNDS:-3}" "${REPEAT:-50}" 2> "$OUT/bench.err" \
  | tee "$OUT/bench.txt" | grep -v "^ROW " || tail -20 "$OUT/bench.err"
