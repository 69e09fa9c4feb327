#!/bin/bash
# Builds and runs the tests labelled gpu on the GPU machine, which has PyTorch's wheel and nvcc
# but no Qt: Qt Core and Qt Test come from Debian 12's packages that device_deps.sh keeps in
# build-qt-debs/ (unpacked here under /tmp), the other libraries from build-exec-deps/. Carry
# both from the repository root: run(carry=["build-exec-deps", "build-qt-debs"]).
# The tests build against the wheel's LibTorch with CUDA (FXSCOPE_TORCH_CUDA), so they run
# instead of skipping (a skip here exits 3). Writes $OUT/gpu_tests.log (the whole output) and
# prints its summary. TORCH_DIR overrides the wheel's LibTorch (a check of the Qt side on a
# machine without a GPU: the tests then skip).
set -u
OUT=${OUT:-${1:-/tmp/gpu_tests}}
mkdir -p "$OUT"
D=$PWD/build-exec-deps
Q=/tmp/fxscope-qt
B=${FXSCOPE_TEST_BUILD:-/tmp/fxt}
if [ ! -d "$Q/usr" ]; then
  mkdir -p "$Q"
  for deb in build-qt-debs/*.deb; do
    # Debian's C++ runtime goes aside: it is used only where the machine's is older (below).
    to=$Q
    case $(basename "$deb") in libstdc++6_* | libgcc-s1_*) to=$Q/runtime ;; esac
    mkdir -p "$to"
    if command -v dpkg-deb > /dev/null; then
      dpkg-deb -x "$deb" "$to"
    else # ar and tar: the package's data member, whichever compression it has
      member=$(ar t "$deb" | grep '^data\.tar')
      ar p "$deb" "$member" | tar -xa -C "$to" -f - 2> /dev/null ||
        ar p "$deb" "$member" | tar -xJ -C "$to" -f -
    fi
  done
  # Absolute links (x86_64-linux-gnu-qmake6 -> /usr/lib/qt6/bin/qmake6) stay inside $Q.
  find "$Q" -type l -lname '/*' | while read -r l; do ln -sfr "$Q$(readlink "$l")" "$l"; done
fi
QLIB=$Q/usr/lib/x86_64-linux-gnu
export PATH=$PATH:$D/bin
export LD_LIBRARY_PATH=$QLIB:$D/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# Qt's packages need GCC 12's C++ runtime (GLIBCXX_3.4.30). A machine whose own is older gets
# Debian's, which is backward compatible; a newer one is never replaced by it.
have_cxx=0
for f in /usr/lib/x86_64-linux-gnu/libstdc++.so.6 /lib/x86_64-linux-gnu/libstdc++.so.6 \
  /usr/lib64/libstdc++.so.6; do
  [ -e "$f" ] && grep -q GLIBCXX_3.4.30 "$f" && have_cxx=1
done
if [ "$have_cxx" = 0 ]; then
  echo "this machine's C++ runtime is older than GCC 12's: using Debian's for the tests"
  export LD_LIBRARY_PATH=$Q/runtime/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH
fi
export PKG_CONFIG_PATH=$D/usr/lib/x86_64-linux-gnu/pkgconfig:$D/usr/share/pkgconfig
export PKG_CONFIG_SYSROOT_DIR=$D
TD=${TORCH_DIR:-$(python3 -c 'import torch.utils;print(torch.utils.cmake_prefix_path)')/Torch}
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFXSCOPE_BUILD_GUI=OFF \
  -DFXSCOPE_WITH_GRAPHVIZ=OFF -DFXSCOPE_BUILD_TESTS=ON -DFXSCOPE_BUILD_FUZZERS=OFF \
  -DFXSCOPE_BUILD_BENCHMARKS=OFF -DFXSCOPE_TEST_GROUPS=OFF -DFXSCOPE_TEST_PCH=OFF \
  -DFXSCOPE_ENABLE_CUDA=AUTO -DTorch_DIR="$TD" -DQt6_DIR="$QLIB/cmake/Qt6" \
  -DCMAKE_PREFIX_PATH="$D/usr;$Q/usr" -DOPENSSL_ROOT_DIR="$D/usr" \
  -DCMAKE_CXX_FLAGS="-I$D/usr/include/x86_64-linux-gnu" \
  -DCMAKE_EXE_LINKER_FLAGS="-Wl,--no-as-needed" > "$OUT/configure.log" 2>&1 \
  || { tail -40 "$OUT/configure.log"; exit 1; }
grep "fxscope:" "$OUT/configure.log" | grep -v "needs the GUI"
TESTS=$(cd "$B" && ctest -N -L gpu | sed -n 's/^ *Test *#[0-9]*: //p')
[ -n "$TESTS" ] || { echo "no test labelled gpu was configured"; exit 1; }
SECONDS=0
# shellcheck disable=SC2086 # one target per test name
cmake --build "$B" -j"$(nproc)" --target fxscope-cli $TESTS > "$OUT/build.log" 2>&1 \
  || { grep -E "error|FAILED" -A3 "$OUT/build.log" | head -60; exit 1; }
echo "built $TESTS in ${SECONDS}s"
nvidia-smi -L
(cd "$B" && ctest -L gpu -V --timeout 600) > "$OUT/gpu_tests.log" 2>&1
rc=$?
grep -E "^[0-9]+: (PASS|FAIL|SKIP|XFAIL|XPASS|QWARN|QDEBUG)|Loc:|Totals|tests passed" \
  "$OUT/gpu_tests.log" | cut -c1-400
# On the GPU machine a skip means the build or the machine is not what the tests need.
if grep -qE "^[0-9]+: SKIP" "$OUT/gpu_tests.log"; then
  echo "a test skipped on the GPU machine: not a pass"
  [ "$rc" -eq 0 ] && rc=3
fi
exit $rc
