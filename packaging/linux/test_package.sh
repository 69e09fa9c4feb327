#!/usr/bin/env bash
# The .deb's test (CTest: package_*). One step per call, on the package CPack builds from the
# binaries already in the build tree (no second build):
#   test_package.sh build BUILD OUT     cpack -G DEB into OUT, dpkg -x into OUT/root
#   test_package.sh validate BUILD OUT  desktop entry, metainfo, MIME type and its association,
#                                       icons, man pages, completion data, Python bridge, Depends
#   test_package.sh lintian BUILD OUT   lintian, failing on errors and warnings not overridden
#   test_package.sh run BUILD OUT       both programs from OUT/root on the bundled sample
#   test_package.sh selftest BUILD OUT  the validators fail on broken copies of the files
set -euo pipefail
step="$1"
build="$2"
out="$3"
id=io.github.fxscope.fxscope
root="$out/root"
share="$root/usr/share"

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

deb() {
    local debs=("$out"/fxscope_*.deb)
    [ -f "${debs[0]}" ] || fail "no .deb in $out (run the build step)"
    echo "${debs[0]}"
}

validate_desktop() {
    desktop-file-validate "$1" || fail "desktop-file-validate: $1"
    grep -qx "MimeType=application/x-fxscope-project;" "$1" || fail "$1: no .fxscope MimeType"
    grep -qx "Icon=$id" "$1" || fail "$1: icon is not $id"
}

validate_metainfo() {
    appstreamcli validate --no-net --pedantic "$1" || fail "appstreamcli validate: $1"
    grep -q "<id>$id</id>" "$1" || fail "$1: id is not $id"
}

# The MIME database built from the package's type maps *.fxscope (and the project's magic) to
# the type, and the desktop database opens that type with fxscope.
validate_association() {
    local mime="$1" apps="$2" scratch
    scratch="$(mktemp -d)"
    mkdir -p "$scratch/mime/packages" "$scratch/applications"
    cp "$mime" "$scratch/mime/packages/"
    cp "$apps"/*.desktop "$scratch/applications/"
    XDG_DATA_HOME="$scratch" update-mime-database "$scratch/mime" || fail "update-mime-database rejects $mime"
    grep -q "^50:application/x-fxscope-project:\*\.fxscope$" "$scratch/mime/globs2" ||
        fail "$mime: *.fxscope is not application/x-fxscope-project"
    grep -q "fxscope-project" "$scratch/mime/magic" || fail "$mime: no magic for projects"
    update-desktop-database "$scratch/applications"
    grep -qx "application/x-fxscope-project=$id.desktop;" "$scratch/applications/mimeinfo.cache" ||
        fail "projects do not open with $id.desktop"
    rm -rf "$scratch"
}

# PNG width and height from the IHDR chunk.
png_size() {
    od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%dx%d", $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8 }'
}

validate_icons() {
    local icons="$share/icons/hicolor" size
    grep -q "<svg" "$icons/scalable/apps/$id.svg" || fail "no scalable icon"
    for size in 16 24 32 48 64 128 256; do
        [ "$(png_size "$icons/${size}x$size/apps/$id.png")" = "${size}x$size" ] ||
            fail "icon ${size}x$size missing or of another size"
    done
}

validate_man_pages() {
    local page warnings sub
    for page in fxscope fxscope-cli; do
        warnings="$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$share/man/man1/$page.1.gz" 2>&1 >/dev/null)"
        [ -z "$warnings" ] || fail "man page $page: $warnings"
    done
    # Every subcommand fxscope-cli has is described in its man page.
    for sub in $("$root/usr/bin/fxscope-cli" --help | awk '/^Subcommands:/ { on = 1; next } on && /^  [^ ]/ { print $1 }'); do
        zcat "$share/man/man1/fxscope-cli.1.gz" | grep -qx ".B ${sub//-/\\\\-}" ||
            fail "fxscope-cli.1 lacks the subcommand $sub"
    done
}

validate() {
    validate_desktop "$share/applications/$id.desktop"
    validate_metainfo "$share/metainfo/$id.metainfo.xml"
    validate_association "$share/mime/packages/$id.xml" "$share/applications"
    validate_icons
    validate_man_pages
    [ -f "$share/fxscope/python/fxscope_regions.py" ] || fail "no Python bridge"
    [ -f "$share/fxscope/python/fxscope_nested.py" ] || fail "no Python bridge (nested)"
    [ -f "$share/bash-completion/completions/fxscope-cli" ] || fail "no bash completion"
    local depends
    depends="$(dpkg-deb -f "$(deb)" Depends)"
    for lib in libtorch libqt6widgets6 libsqlite3-0 libgvc6 libc6; do
        [[ "$depends" == *"$lib"* ]] || fail "Depends lacks $lib: $depends"
    done
    echo "package files valid; Depends: $depends"
}

# complete WORDS...: what the installed completion offers for the last word.
complete_words() {
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _fxscope_cli
             echo "${COMPREPLY[*]}"' _ "$share/bash-completion/completions/fxscope-cli" "$@"
}

run() {
    local cli="$root/usr/bin/fxscope-cli" app="$root/usr/bin/fxscope" scratch sample
    scratch="$(mktemp -d)"
    export HOME="$scratch" XDG_CONFIG_HOME="$scratch/config" XDG_CACHE_HOME="$scratch/cache"
    export XDG_RUNTIME_DIR="$scratch/run" QT_QPA_PLATFORM=offscreen
    mkdir -m 700 "$XDG_RUNTIME_DIR"
    sample="$share/fxscope/samples/cache_miss_then_hit"
    "$cli" --version | grep -qx "fxscope-cli [0-9.]*" || fail "fxscope-cli --version"
    "$cli" inspect "$sample" --json >"$scratch/inspect.json" || fail "fxscope-cli inspect"
    grep -q '"state": "miss"' "$scratch/inspect.json" || fail "inspect found no cache miss"
    "$cli" partition "$sample/1_cold.log" --graph 0 --auto --save-project "$scratch/p.fxscope" ||
        fail "fxscope-cli partition --save-project"
    local line
    line="$("$app" --smoke-test "$scratch/p.fxscope" 2>/dev/null)" || fail "fxscope --smoke-test: $line"
    echo "$line"
    [[ "$line" == *"1 run(s)"*"0 error(s)"*"p.fxscope"* ]] || fail "the project did not open: $line"
    [ "$(complete_words fxscope-cli cache "")" = "ls show diff gc stats verify repair" ] ||
        fail "completion of 'fxscope-cli cache'"
    [ "$(complete_words fxscope-cli partition g.txt --save-p)" = "--save-project" ] ||
        fail "completion of partition's options"
    rm -rf "$scratch"
    echo "both programs ran from the extracted package"
}

# Each validator must fail on a broken copy (run in a subshell: fail exits it). The FAIL lines
# printed here are the expected ones.
selftest() {
    local scratch
    scratch="$(mktemp -d)"
    cp "$share/applications/$id.desktop" "$share/metainfo/$id.metainfo.xml" "$scratch/"
    cp "$share/mime/packages/$id.xml" "$scratch/$id.mime.xml"
    sed -i '/^Type=/d' "$scratch/$id.desktop"
    ! (validate_desktop "$scratch/$id.desktop") || fail "a desktop entry without Type= passed"
    sed -i 's|<id>.*</id>|<id>fxscope</id>|' "$scratch/$id.metainfo.xml"
    ! (validate_metainfo "$scratch/$id.metainfo.xml") || fail "a metainfo with a bad id passed"
    sed -i 's|\*\.fxscope|*.fxs|' "$scratch/$id.mime.xml"
    ! (validate_association "$scratch/$id.mime.xml" "$share/applications") ||
        fail "a MIME type without *.fxscope passed"
    rm -rf "$scratch"
    echo "every validator rejected its broken file"
}

case "$step" in
build)
    rm -rf "$out"
    cpack --config "$build/CPackConfig.cmake" -G DEB -B "$out"
    rm -rf "$out/_CPack_Packages" # the staging tree: the .deb and its extraction suffice
    dpkg -x "$(deb)" "$root"
    ls -l "$(deb)"
    ;;
validate) validate ;;
lintian)
    # Info-level tags are shown; errors and warnings fail unless the package's overrides
    # file (packaging/linux/lintian-overrides) lists them with a reason.
    lintian --display-level ">=info" --fail-on error,warning "$(deb)"
    echo "lintian: no errors or warnings"
    ;;
run) run ;;
selftest) selftest ;;
*) fail "unknown step $step" ;;
esac
