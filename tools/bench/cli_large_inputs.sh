#!/usr/bin/env bash
# fxscope-cli on large TORCH_TRACE inputs, run as a user runs it (issue: "one large log" and
# "ranks in parallel"):
#  - one log: the recorded 64-layer LLaMA's log (tests/data/recorded/traces/llama64.log.gz,
#    11.6 MB) repeated COPIES times (default 27: 313 MB), read by `inspect --json` and
#    `diagnose --json`;
#  - a rank folder: RANKS logs (default 64) of RANK_MB each (default 20: 1.3 GB) written by
#    bench_rank_folder --write (the recorded 2-rank run, ranks rewritten, frames renumbered), read
#    by `diagnose --json`.
# Each measurement is /usr/bin/time's wall seconds and peak RSS; ROUNDS rounds (default 3)
# interleave the commands; the table gives medians with min–max.
# Usage: tools/bench/cli_large_inputs.sh BUILD_DIR [WORK_DIR]
set -euo pipefail
build=$(cd "$1" && pwd)
work=${2:-$(mktemp -d)}
root=$(cd "$(dirname "$0")/../.." && pwd)
cli="$build/app/cli/fxscope-cli"
rounds=${ROUNDS:-3}
copies=${COPIES:-27}
mkdir -p "$work"
log="$work/llama64_x$copies.log"
if [[ ! -f $log ]]; then
    gzip -dc "$root/tests/data/recorded/traces/llama64.log.gz" > "$work/one.log"
    for _ in $(seq "$copies"); do cat "$work/one.log"; done > "$log"
    rm "$work/one.log"
fi
ranks="$work/ranks"
if [[ ! -d $ranks ]]; then
    FXSCOPE_BENCH_RANKS=${RANKS:-64} FXSCOPE_BENCH_RANK_MB=${RANK_MB:-20} \
        "$build/tests/bench/bench_rank_folder" --write "$ranks"
fi
log_mb=$(( $(stat -c %s "$log") / 1048576 ))
ranks_mb=$(( $(du -sb "$ranks" | cut -f1) / 1048576 ))

declare -A wall rss
measure() { # name, command...
    local name=$1; shift
    local out
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" > /dev/null 2> "$work/stderr" || true
    out=$(tail -1 "$work/time")
    wall[$name]+="${out% *} "
    rss[$name]+="${out#* } "
}
for r in $(seq "$rounds"); do
    measure inspect "$cli" inspect "$log" --json
    measure diagnose "$cli" diagnose "$log" --json
    measure ranks "$cli" diagnose "$ranks" --json
done
stats() { # values... -> "median (min–max)"
    printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {printf "%s (%s–%s)", v[int((NR+1)/2)], v[1], v[NR]}'
}
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
echo "machine: $(nproc) cores, $(uname -m); load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| input | command | wall s, median (min–max) | MB/s | peak RSS MB | × input |\n|---|---|---|---|---|---|\n'
for name in inspect diagnose ranks; do
    mb=$log_mb; what="$(basename "$log") ($log_mb MB)"
    if [[ $name == ranks ]]; then mb=$ranks_mb; what="$(ls "$ranks" | wc -l) rank logs ($ranks_mb MB)"; fi
    cmd=$name; [[ $name == ranks ]] && cmd=diagnose
    # shellcheck disable=SC2086
    w=$(median ${wall[$name]}); m=$(median ${rss[$name]})
    # shellcheck disable=SC2086
    printf '| %s | %s --json | %s | %.0f | %.0f | %.2f |\n' "$what" "$cmd" "$(stats ${wall[$name]})" \
        "$(echo "$mb / $w" | bc -l)" "$(echo "$m / 1024" | bc -l)" "$(echo "$m / 1024 / $mb" | bc -l)"
done
