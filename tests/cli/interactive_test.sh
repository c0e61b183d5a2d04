#!/usr/bin/env bash
# generate -i: typed lines continue one text with one KV cache, each turn generating what a plain
# run from the whole text so far generates (with a character vocabulary the text is the ids, so a
# plain run of the text is a run of the same ids); past the context the shift keeps the newest
# half and says so; the end of input ends cleanly; a line the vocabulary cannot encode is dropped.
source "$(dirname "$0")/cli_support.sh"
char=$root/tests/fixtures/hf/char-tiny
text_of() { node -e 'process.stdout.write(JSON.parse(process.argv[1]).text)' "$1"; }

# continuation TEXT OPTIONS...: the text a plain run generates after TEXT, trailing newlines kept.
continuation() {
  local json
  json=$("$wgpt" generate -m "$char" -p "$1" "${@:2}" --json 2>/dev/null) || fail "generate -p failed: $1"
  text_of "$json"
}
# expected_session "OPTIONS" FIRST LINE...: what -i writes when every turn continues as a plain
# run from the whole text so far does (FIRST is -p's text, or empty).
expected_session() {
  local -a options=($1)
  local text=$2 line
  shift 2
  if [ -n "$text" ]; then
    text+=$(continuation "$text" "${options[@]}"; printf x) && text=${text%x}
  fi
  for line in "$@"; do
    [ -z "$text" ] || [[ "$text" == *$'\n' ]] || text+=$'\n'
    text+="$line"$'\n'
    text+=$(continuation "$text" "${options[@]}"; printf x) && text=${text%x}
  done
  [[ "$text" == *$'\n' ]] || text+=$'\n'
  printf '%s' "$text"
}
# same "what" EXPECTED FILE: the file holds exactly EXPECTED.
same() {
  local actual
  actual=$(cat "$3"; printf x) && actual=${actual%x}
  [ "$actual" = "$2" ] || fail "$1: $(cat -A "$3") expected $(cat -A <<<"$2")"
}

# Several turns from standard input, ended by its end: each equals a plain run from the whole
# text, greedily on the CPU and on the GPU, sampled on the CPU.
greedy="-n 12 --greedy --ignore-eos"
expected=$(expected_session "$greedy --backend cpu" "ROMEO:" "JULIET:" "NURSE:"; printf x) && expected=${expected%x}
for backend in cpu gpu; do
  printf 'JULIET:\nNURSE:\n' | "$wgpt" generate -m "$char" -p "ROMEO:" -i $greedy --backend $backend \
    >"$scratch/greedy.$backend" 2>"$scratch/err"
  status=$?
  [ "$status" -eq 0 ] || fail "-i on the $backend ended with status $status: $(cat "$scratch/err")"
  same "three greedy turns on the $backend" "$expected" "$scratch/greedy.$backend"
done
sampled="-n 12 --top-k 10 --seed 3 --ignore-eos --backend cpu"
printf 'ROMEO:\nJULIET:\n\nnever read\n' | "$wgpt" generate -m "$char" -i $sampled >"$scratch/chat" 2>"$scratch/err" ||
  fail "generate -i failed: $(cat "$scratch/err")"
expected=$(expected_session "$sampled" "" "ROMEO:" "JULIET:"; printf x) && expected=${expected%x}
same "sampled turns" "$expected" "$scratch/chat"
grep -q "never read" "$scratch/chat" && fail "generate -i went on past an empty line"
"$wgpt" generate -m "$char" -p "ROMEO:" -i $greedy --backend cpu </dev/null >"$scratch/first" 2>"$scratch/err" ||
  fail "-i with no input failed: $(cat "$scratch/err")"
expected=$(expected_session "$greedy --backend cpu" "ROMEO:"; printf x) && expected=${expected%x}
same "no typed line" "$expected" "$scratch/first"

# A line the context cannot take beside the text: the oldest tokens are dropped, the line stays
# whole (it is more than half the context), the turn continues as a plain run from the line alone,
# and standard error says so.
first="ROMEO:"$'\n'"He jests at scars that never felt a wound."
line="JULIET: what light through yonder window breaks"
short="-n 4 --greedy --ignore-eos --backend cpu"
printf '%s\n' "$line" | "$wgpt" generate -m "$char" -p "$first" -i $short >"$scratch/shift" 2>"$scratch/err" ||
  fail "-i past the context failed: $(cat "$scratch/err")"
turn1="$first$(continuation "$first" $short; printf x)" && turn1=${turn1%x}
kept="$line"$'\n'  # with the newline the session puts before it where the text does not end with one
[[ "$turn1" == *$'\n' ]] || kept=$'\n'"$kept"
expected="$turn1$kept$(continuation "$kept" $short; printf x)" && expected=${expected%x}
[[ "$expected" == *$'\n' ]] || expected+=$'\n'
same "a turn past the context" "$expected" "$scratch/shift"
grep -q "context shift: the context of 64 tokens filled 1 time(s)" "$scratch/err" ||
  fail "the shift before a turn is not told: $(cat "$scratch/err")"

# A session many times the context: it goes on, says how the context shifted, the GPU as the CPU.
lines='JULIET:\nNURSE:\nROMEO:\nJULIET:\nNURSE:\nROMEO:\nJULIET:\nNURSE:\n'
for backend in cpu gpu; do
  printf "$lines" | "$wgpt" generate -m "$char" -p "ROMEO:" -i -n 20 --greedy --ignore-eos --backend $backend \
    >"$scratch/long.$backend" 2>"$scratch/err.$backend" ||
    fail "a long session on the $backend failed: $(cat "$scratch/err.$backend")"
  [ "$(grep -c "^context shift: the context of 64 tokens filled" "$scratch/err.$backend")" -ge 3 ] ||
    fail "a long session on the $backend told of too few shifts: $(cat "$scratch/err.$backend")"
done
[ "$(wc -c <"$scratch/long.cpu")" -gt 220 ] || fail "a long session wrote $(wc -c <"$scratch/long.cpu") bytes"
cmp -s "$scratch/long.cpu" "$scratch/long.gpu" || fail "the GPU's long session differs from the CPU's"

# Without context shift a full context ends the session (status 0) before the lines that remain.
printf "$lines" | "$wgpt" generate -m "$char" -p "ROMEO:" -i -n 20 --greedy --ignore-eos --no-context-shift \
  --backend cpu >"$scratch/wall" 2>"$scratch/err" || fail "-i --no-context-shift failed: $(cat "$scratch/err")"
grep -q "context of 64 tokens is full" "$scratch/err" || fail "-i --no-context-shift: $(cat "$scratch/err")"
[ "$(grep -c "^NURSE:" "$scratch/wall")" -le 2 ] || fail "-i went on past a full context: $(cat "$scratch/wall")"

# A line outside the character vocabulary (--unknown error) is reported and dropped; the session
# goes on as if it had not been typed.
printf 'JULIET ~ #\nNURSE:\n' | "$wgpt" generate -m "$char" -p "ROMEO:" -i $greedy --backend cpu --unknown error \
  >"$scratch/bad" 2>"$scratch/err" || fail "-i with a bad line failed: $(cat "$scratch/err")"
grep -q "character '~' (U+007E) at character 7 .*; the line is dropped, type another" "$scratch/err" ||
  fail "the bad line is not reported: $(cat "$scratch/err")"
expected=$(expected_session "$greedy --backend cpu" "ROMEO:" "NURSE:"; printf x) && expected=${expected%x}
same "a session past a bad line" "$expected" "$scratch/bad"

# A stop string ends the turn and is shown: the model has read it and continues after it.
full=$(continuation "ROMEO:" -n 40 --greedy --ignore-eos --backend cpu)
stop=${full:12:3}
before=${full%%"$stop"*}
"$wgpt" generate -m "$char" -p "ROMEO:" -i -n 40 --greedy --ignore-eos --stop "$stop" --backend cpu </dev/null \
  >"$scratch/stop" 2>/dev/null || fail "-i --stop failed"
same "-i --stop '$stop'" "ROMEO:$before$stop"$'\n' "$scratch/stop"

expect_error "a first text past the context" "more than the model's context of 64" \
  "$wgpt" generate -m "$char" -i -p "$(printf 'x%.0s' {1..70})" --backend cpu
"$wgpt" generate -m "$char" -i -p "$(printf 'x%.0s' {1..70})" --backend cpu </dev/null 2>/dev/null | grep -q x &&
  fail "a first text past the context was written before it was refused"
expect_error "-i with --json" "it takes neither --json nor -p -" "$wgpt" generate -m "$char" -i --json
finish
