#!/bin/bash
# Prepares build-exec-deps/ for the GPU machine, which has PyTorch's wheel, nvcc and no package
# manager access: Debian 12's development packages that core and fxscope-cli need (without Qt,
# Graphviz or the test tools), unpacked with dpkg -x, and a pkg-config that runs from there.
# Run it on the Debian machine, then carry build-exec-deps to the GPU machine (about 30 MB);
# gpu_vs_inductor.sh and cpu_vs_inductor.sh use it from the repository root.
# It also keeps Qt Core and Qt Test's packages, unopened, in build-qt-debs/ (about 15 MB):
# gpu_tests.sh unpacks them on the GPU machine to build and run the tests labelled gpu.
set -eu
D=$PWD/build-exec-deps
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
(cd "$T" && apt-get download -q libssl-dev libssl3 nlohmann-json3-dev libsimdjson-dev \
  libsimdjson14 zlib1g-dev libxxhash-dev libxxhash0 libzip-dev libzip4 libcli11-dev libfmt-dev \
  libfmt9 libsqlite3-dev libsqlite3-0 libhiredis-dev libhiredis0.14 pkgconf-bin libpkgconf3 \
  pkgconf libbz2-1.0 liblzma5 libzstd1 zlib1g 2>/dev/null)
rm -rf "$D"
mkdir -p "$D/bin"
for deb in "$T"/*.deb; do
  dpkg -x "$deb" "$D"
done
cat > "$D/bin/pkg-config" <<'SH'
#!/bin/sh
D=$(cd "$(dirname "$0")/.." && pwd)
LD_LIBRARY_PATH=$D/usr/lib/x86_64-linux-gnu exec "$D/usr/bin/pkgconf" "$@"
SH
chmod +x "$D/bin/pkg-config"
find "$D" -name "*.a" -delete
# Absolute links (libz.so -> /lib/...) would leave the tree on the GPU machine: make them relative.
find "$D" -type l -lname '/*' | while read -r l; do ln -sfr "$D$(readlink "$l")" "$l"; done
du -sh "$D"
Q=$PWD/build-qt-debs
rm -rf "$Q"
mkdir -p "$Q"
(cd "$Q" && apt-get download -q qt6-base-dev qt6-base-dev-tools libqt6core6 libqt6test6 \
  libicu72 libdouble-conversion3 libpcre2-16-0 libb2-1 libgomp1 libglib2.0-0 qmake6 qmake6-bin \
  libstdc++6 libgcc-s1 2>/dev/null)
du -sh "$Q"
