#!/usr/bin/env bash
# wgpt completion bash: the script, sourced in bash, completes subcommands, their options, the
# choices of an option and file names, as a user pressing TAB would see.
source "$(dirname "$0")/cli_support.sh"

"$wgpt" completion bash >"$scratch/wgpt.bash" 2>"$scratch/err" || fail "completion bash failed: $(cat "$scratch/err")"
expect_usage_error "another shell" "fish" "$wgpt" completion fish
touch "$scratch/prompt.txt" "$scratch/trace.ndjson"

# complete_line "words typed so far": what TAB offers for the last word, one per line, sorted.
complete_line() {
  bash --norc --noprofile -c '
    source "$1"
    read -ra COMP_WORDS <<<"$2"
    [[ $2 == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    cd "$3" && _wgpt && printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$scratch/wgpt.bash" "$1" "$scratch"
}
expect_completion() {
  local got
  got=$(complete_line "$1" | tr '\n' ' ')
  [ "$got" = "$2 " ] || fail "wgpt completion of '$1': '$got', expected '$2 '"
}

expect_completion "wgpt ge" "generate"
expect_completion "wgpt generate --st" "--stop"
expect_completion "wgpt tr" "trace train"
expect_completion "wgpt generate --backend " "auto cpu gpu"
expect_completion "wgpt tokenize -m x --unknown " "error replace skip"
expect_completion "wgpt capture --names t" "tl"
expect_completion "wgpt generate -f pr" "prompt.txt"
expect_completion "wgpt trace -o tr" "trace.ndjson"
expect_completion "wgpt data b" "brown"
expect_completion "wgpt completion --h" "--help"
# Every subcommand of `wgpt --help` is offered, and every option of `wgpt generate --help`.
commands=$("$wgpt" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && NF { print $1 }')
[ "$(wc -w <<<"$commands")" -gt 10 ] || fail "wgpt --help lists no subcommands: $commands"
for command in $commands; do
  complete_line "wgpt " | grep -qx "$command" || fail "'$command' is not completed"
done
options=$("$wgpt" generate --help | grep -oE -- '^ +(-[a-z],)?--[a-z][a-z-]*' | grep -oE -- '--[a-z-]+')
[ "$(wc -w <<<"$options")" -gt 20 ] || fail "wgpt generate --help lists no options: $options"
for option in $options; do
  complete_line "wgpt generate --" | grep -qx -- "$option" || fail "generate's $option is not completed"
done

finish
