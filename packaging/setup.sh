#!/usr/bin/env bash
# Sets up fxscope on Debian 12: installs what is missing (apt, only when something is: a re-run
# on a set-up machine needs no network), configures and builds with ccache, then opens the app
# on the bundled sample ("app": builds the app alone), runs every test ("test": builds
# everything) or builds the Debian package from the binaries just built ("package").
#   packaging/setup.sh app      # install, build, open the app on resources/samples
#   packaging/setup.sh test     # install, build, run the whole CTest suite
#   packaging/setup.sh package  # install, build, then build/fxscope_<version>_amd64.deb
set -euo pipefail
mode="${1:-app}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

packages=(
    build-essential cmake ninja-build pkg-config ccache git
    clang libclang-rt-14-dev
    qt6-base-dev qt6-svg-dev qt6-charts-dev libqt6opengl6-dev
    libxkbcommon-dev libgl-dev libvulkan-dev
    libtorch-dev libgraphviz-dev libsqlite3-dev libssl-dev
    libbenchmark-dev nlohmann-json3-dev libsimdjson-dev libxxhash-dev libzip-dev
    libcli11-dev libfmt-dev libsleef-dev
    libhiredis-dev redis-server
    # the Python plan appliers' tests (plain Python; the torch.fx one runs where torch is found)
    python3
    # the .deb (CPack, dpkg-shlibdeps, PNG icons) and its test (validators, lintian)
    dpkg-dev librsvg2-bin shared-mime-info desktop-file-utils appstream lintian
)
if [ "$mode" = app ]; then
    packages+=(qt6-qpa-plugins fonts-dejavu-core)
fi

# Wanted, not required: an optimised BLAS. Debian's LibTorch takes its matrix products from
# whichever libblas.so.3 is selected; without OpenBLAS that is the reference implementation,
# about 25 times slower (GPT-12's forward on the engine: 2.9 s instead of 0.11 s on 2 cores).
wanted=(libopenblas0-pthread)

missing=()
for p in "${packages[@]}" "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "fxscope: installing ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    # On CI's throwaway machines dpkg skips its fsync after every file (--force-unsafe-io, as
    # Debian's build chroots do): from a bare Debian 12 on 2 cores, 96 s instead of 110 s, and
    # 283 s instead of 358-401 s while other builds ran.
    # Elsewhere a power cut during the install must not leave half-written files, so not there.
    apt_install=(apt-get install -y -qq --no-install-recommends)
    if [ "${CI:-}" = true ]; then
        apt_install+=(-o Dpkg::Options::=--force-unsafe-io)
    fi
    $sudo apt-get update -qq
    required=()
    for p in "${missing[@]}"; do
        [[ " ${wanted[*]} " == *" $p "* ]] || required+=("$p")
    done
    if [ ${#required[@]} -gt 0 ]; then
        DEBIAN_FRONTEND=noninteractive $sudo "${apt_install[@]}" "${required[@]}"
    fi
    for p in "${wanted[@]}"; do
        [[ " ${missing[*]} " == *" $p "* ]] || continue
        DEBIAN_FRONTEND=noninteractive $sudo "${apt_install[@]}" "$p" ||
            echo "fxscope: $p could not be installed; LibTorch uses the reference BLAS (slow)"
    done
fi

build="${FXSCOPE_BUILD_DIR:-$root/build}"
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
# Relative paths in the ccache hash: a fresh clone elsewhere reuses earlier compilations.
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
# Optimised, with line tables (-g1: backtraces name files and lines) rather than full debug
# information, which costs a quarter of the compile time; a debugging session configures its own
# build (-DCMAKE_BUILD_TYPE=Debug).
flags="-O2 -g1 -DNDEBUG"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags"
if [ "$mode" = app ]; then
    # The first window needs the app only; "test" later builds the rest in the same folder.
    cmake --build "$build" -j "$(nproc)" --target fxscope
else
    cmake --build "$build" -j "$(nproc)"
fi

case "$mode" in
app)
    exec "$build/app/gui/fxscope" "$root/resources/samples/cache_miss_then_hit"
    ;;
test)
    cd "$build"
    # One test more than cores: the tests keep the cores about 90 % busy (the rest is waiting for
    # servers and child programs).
    ctest --output-on-failure -j "$(( $(nproc) + 1 ))" --timeout 900
    ;;
package)
    cmake --build "$build" --target package
    ls "$build"/fxscope_*.deb
    ;;
*)
    echo "usage: packaging/setup.sh app|test|package" >&2
    exit 2
    ;;
esac
