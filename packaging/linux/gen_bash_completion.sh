#!/usr/bin/env bash
# Writes the bash completion of fxscope-cli from the built program's own --help (its
# subcommands, their subcommands and each level's options), so it never lags behind the CLI.
#   gen_bash_completion.sh path/to/fxscope-cli OUTPUT
set -euo pipefail
cli="$1"
out="$2"

# section NAME: the first words of the lines of the --help section NAME (read from stdin).
section() {
    awk -v want="$1:" '/^[A-Za-z].*:$/ { on = ($0 == want); next }
                       on && /^  [^ ]/ { print $1 }'
}
# options: "-h --help --out ..." from a --help text on stdin.
options() {
    section Options | tr ',' '\n' | grep -E '^-' | tr '\n' ' ' | sed 's/ $//'
}

subs_lines=()
opts_lines=()
# visit PATH...: records, under the key "fxscope-cli PATH...", the options and subcommands of `fxscope-cli PATH... --help`.
visit() {
    local key="fxscope-cli${*:+ $*}" help subs
    help="$("$cli" "$@" --help)"
    subs="$(section Subcommands <<<"$help" | tr '\n' ' ' | sed 's/ $//')"
    opts_lines+=("    [\"$key\"]=\"$(options <<<"$help")\"")
    subs_lines+=("    [\"$key\"]=\"$subs\"")
    local s
    for s in $subs; do
        visit "$@" "$s"
    done
}
visit

{
    echo "# bash completion for fxscope-cli (generated from its --help at build time)."
    echo "declare -gA _fxscope_cli_subcommands=("
    printf '%s\n' "${subs_lines[@]}"
    echo ")"
    echo "declare -gA _fxscope_cli_options=("
    printf '%s\n' "${opts_lines[@]}"
    echo ")"
    cat <<'BODY'

_fxscope_cli()
{
    local cur="${COMP_WORDS[COMP_CWORD]}" path=fxscope-cli w i
    # The subcommand path so far: each word that is a subcommand of the path before it.
    for ((i = 1; i < COMP_CWORD; i++)); do
        w="${COMP_WORDS[i]}"
        if [[ " ${_fxscope_cli_subcommands[$path]} " == *" $w "* ]]; then
            path="$path $w"
        fi
    done
    if [[ "$cur" == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "${_fxscope_cli_options[$path]}" -- "$cur")
    else
        mapfile -t COMPREPLY < <(compgen -W "${_fxscope_cli_subcommands[$path]}" -- "$cur")
    fi
}
complete -o default -F _fxscope_cli fxscope-cli
BODY
} >"$out.tmp"
mv "$out.tmp" "$out"
