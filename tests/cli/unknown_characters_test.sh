#!/usr/bin/env bash
# --unknown error|replace|skip: what a character vocabulary does with a character it lacks, on every
# command that encodes text (tokenize, generate, trace, score, capture, train --init).
source "$(dirname "$0")/cli_support.sh"
char=$root/tests/fixtures/hf/char-tiny # no '#', no 'é', no '1'
tiny=$root/tests/fixtures/hf/gpt2-tiny
text='café #3'
ids_of() { "$wgpt" tokenize -m "$char" "$@" 2>&1; }

# The default is today's: an error naming the character and where it is.
expect_error "unknown character" "character 'é' (U+00E9) at character 3 (byte 3) is not in the vocabulary" \
  "$wgpt" tokenize -m "$char" "$text"
[ "$(ids_of "$text" --unknown error)" = "$(ids_of "$text" 2>&1)" ] || fail "--unknown error is not the default"
"$wgpt" tokenize --help | grep -q "error (the default" || fail "tokenize --help does not name the default"

# replace encodes --replacement ('?' unless given); skip drops the character.
[ "$(ids_of "$text" --unknown replace)" = "$(ids_of 'caf? ?3')" ] ||
  fail "--unknown replace: $(ids_of "$text" --unknown replace)"
[ "$(ids_of "$text" --unknown replace --replacement ' ')" = "$(ids_of 'caf   3')" ] ||
  fail "--replacement ' ': $(ids_of "$text" --unknown replace --replacement ' ')"
[ "$(ids_of "$text" --unknown skip)" = "$(ids_of 'caf 3')" ] || fail "--unknown skip: $(ids_of "$text" --unknown skip)"
expect_error "replacement outside the vocabulary" \
  "the replacement for unknown characters, \"#\", is not one of the vocabulary's 65 characters" \
  "$wgpt" tokenize -m "$char" "$text" --unknown replace --replacement '#'
expect_usage_error "an unknown policy" "--unknown" "$wgpt" tokenize -m "$char" "$text" --unknown drop
# BPE encodes every byte: the option changes nothing there.
[ "$("$wgpt" tokenize -m "$tiny" "$text" --unknown skip)" = "$("$wgpt" tokenize -m "$tiny" "$text")" ] ||
  fail "--unknown changed a BPE encoding"

# Every command that encodes text takes it.
prompt_ids() { grep -o '"prompt_ids":\[[0-9,]*\]' <<<"$1" | grep -o '[0-9,]*'; }
run=(-m "$char" --backend cpu)
generated=$("$wgpt" generate "${run[@]}" -p "$text" -n 2 --greedy --json --unknown skip 2>"$scratch/err") ||
  fail "generate --unknown skip failed: $(cat "$scratch/err")"
[ "$(prompt_ids "$generated")" = "$(ids_of 'caf 3' | tr ' ' ',')" ] || fail "generate --unknown skip: $generated"
expect_error "generate by default" "is not in the vocabulary" "$wgpt" generate "${run[@]}" -p "$text" -n 2
"$wgpt" trace "${run[@]}" -p "$text" -n 2 --greedy -o "$scratch/t.ndjson" --unknown replace >/dev/null 2>"$scratch/err" ||
  fail "trace --unknown replace failed: $(cat "$scratch/err")"
"$wgpt" score "${run[@]}" --text "$text" --json --unknown replace >"$scratch/score.json" 2>"$scratch/err" ||
  fail "score --unknown replace failed: $(cat "$scratch/err")"
grep -qF '"text":"?"' "$scratch/score.json" || fail "score did not score the replacement: $(cat "$scratch/score.json")"
"$wgpt" capture "${run[@]}" -p "$text" -o "$scratch/c.safetensors" --unknown skip 2>"$scratch/err" ||
  fail "capture --unknown skip failed: $(cat "$scratch/err")"
grep -q "for 5 tokens" "$scratch/err" || fail "capture --unknown skip: $(cat "$scratch/err")"
"$wgpt" serve --help | grep -q -- "--unknown" || fail "serve has no --unknown"

# Fine-tuning a character model on text with characters it lacks.
printf 'First Citizen: #1 é\n%.0s' {1..40} >"$scratch/data.txt"
expect_error "train --init by default" "is not in the vocabulary" \
  "$wgpt" train --init "$char" --data "$scratch/data.txt" --steps 1 --batch 1 --backend cpu --out "$scratch/run"
"$wgpt" train --init "$char" --data "$scratch/data.txt" --steps 1 --batch 1 --eval-windows 1 --backend cpu \
  --out "$scratch/run2" --unknown skip >/dev/null 2>"$scratch/err" || fail "train --unknown skip failed: $(tail -3 "$scratch/err")"

finish
