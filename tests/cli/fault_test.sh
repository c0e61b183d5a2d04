#!/usr/bin/env bash
# Fault injection (docs/reliability.md has the table): a full disk, a failing fsync and a file-size
# limit while outputs are written; standard output that cannot be written; kill -9 at every step of
# writing a checkpoint; signals; two runs into one directory, and readers beside a writer; FIFOs,
# devices, directories and links where files belong; temporaries of killed runs. Each fault gives
# an error that names what failed (exit 1), or, for a kill, a directory that loads, holds one
# version, and resumes to the same model as a run never interrupted. Never a hang, a torn or mixed
# output, or a silent exit 0. The faults come from tests/fault/fault_injection.cpp (LD_PRELOAD).
source "$(dirname "$0")/cli_support.sh"
shim=$(dirname "$wgpt")/libwgpt_fault_injection.so
[ -f "$shim" ] || { echo "FAIL: $shim is missing (build the wgpt_fault_injection target)"; exit 1; }
tiny=$root/tests/fixtures/hf/gpt2-tiny
char=$root/tests/fixtures/hf/char-tiny
for i in $(seq 1 300); do echo "the quick brown fox jumps over the lazy dog, line $i."; done >"$scratch/text.txt"
small=(--data "$scratch/text.txt" --layers 1 --heads 2 --embd 16 --ctx 16 --batch 2 --eval-windows 2
       --warmup 1 --backend cpu)
faulty() { env LD_PRELOAD="$shim" "$@"; }
leftovers() { find "$1" -maxdepth 1 \( -name '*.tmp.*' -o -name .wgpt-update \) -printf '%f '; }

# One version in a training directory: the weights of model.safetensors are the parameters in
# train_state.safetensors, read under the directory's shared lock as wgpt's own readers do.
one_version() {
  python3 - "$1" <<'PY'
import fcntl, json, os, struct, sys
def tensors(path):
    data = open(path, 'rb').read()
    size = struct.unpack('<Q', data[:8])[0]
    header = json.loads(data[8:8 + size])
    return {name: data[8 + size + t['data_offsets'][0]:8 + size + t['data_offsets'][1]]
            for name, t in header.items() if name != '__metadata__'}
lock = os.open(sys.argv[1], os.O_RDONLY)
fcntl.flock(lock, fcntl.LOCK_SH)
model = tensors(sys.argv[1] + '/model.safetensors')
state = tensors(sys.argv[1] + '/train_state.safetensors')
sys.exit(0 if model and all(state['param.' + name] == value for name, value in model.items()) else 1)
PY
}

# ---- a full disk while a checkpoint is written: an error naming the file, the last one whole
out=$scratch/full
"$wgpt" train "${small[@]}" --steps 2 --out "$out" 2>/dev/null || fail "the first run failed"
cp -r "$out" "$scratch/full.before"
for limit in 0 2000 20000 60000; do
  output=$(WGPT_FAULT_PATH="$out/" WGPT_FAULT_ENOSPC_AFTER=$limit faulty \
    "$wgpt" train "${small[@]}" --steps 4 --resume --out "$out" 2>&1)
  status=$?
  [ $status -eq 1 ] || fail "disk full after $limit bytes: exit $status, expected 1"
  grep -q "cannot .* $out/.*No space left on device" <<<"$output" ||
    fail "disk full after $limit bytes: the message does not name the file: $output"
  for file in config.json model.safetensors train_state.safetensors vocab.json loss.svg; do
    cmp -s "$out/$file" "$scratch/full.before/$file" || fail "disk full after $limit bytes changed $file"
  done
  [ -z "$(leftovers "$out")" ] || fail "disk full after $limit bytes left $(leftovers "$out")"
done
output=$(WGPT_FAULT_PATH="$out/" WGPT_FAULT_FSYNC_ERRNO=5 faulty \
  "$wgpt" train "${small[@]}" --steps 4 --resume --out "$out" 2>&1)
[ $? -eq 1 ] && grep -q "fsync failed: Input/output error" <<<"$output" ||
  fail "a failing fsync was not reported: $output"
cmp -s "$out/model.safetensors" "$scratch/full.before/model.safetensors" || fail "a failing fsync changed the weights"
"$wgpt" train "${small[@]}" --steps 4 --resume --out "$out" 2>/dev/null || fail "no resume after the disk faults"

# Every other output under a full disk: exit 1, the existing file as it was.
check_full_disk() {
  local what=$1 target=$2
  shift 2
  echo "precious" >"$target"
  WGPT_FAULT_PATH="$target" WGPT_FAULT_ENOSPC_AFTER=100 faulty "$@" >/dev/null 2>"$scratch/err"
  local status=$?
  [ $status -eq 1 ] || fail "$what on a full disk: exit $status, expected 1"
  grep -q "No space left on device" "$scratch/err" || fail "$what on a full disk: $(cat "$scratch/err")"
  [ "$(cat "$target")" = "precious" ] || fail "$what on a full disk changed $target"
}
check_full_disk "capture" "$scratch/c.safetensors" \
  "$wgpt" capture -m "$char" --ids 1,2 -o "$scratch/c.safetensors" --backend cpu
check_full_disk "trace" "$scratch/t.ndjson" \
  "$wgpt" trace -m "$char" -p ROMEO -n 2 -o "$scratch/t.ndjson" --backend cpu
check_full_disk "trace --html" "$scratch/t.html" \
  "$wgpt" trace -m "$char" -p ROMEO -n 2 --html "$scratch/t.html" --backend cpu
mkdir -p "$scratch/model" && echo "precious" >"$scratch/model/config.json"
check_full_disk "init" "$scratch/model/config.json" "$wgpt" init --config 1,2,8,8,11 -o "$scratch/model"

# A file-size limit (ulimit -f): the write fails with EFBIG, reported; no SIGXFSZ.
output=$(ulimit -f 1; "$wgpt" capture -m "$tiny" --ids 1,2,3 -o "$scratch/big.safetensors" --backend cpu 2>&1)
status=$?
[ $status -eq 1 ] && grep -q "File too large" <<<"$output" || fail "ulimit -f: exit $status: $output"

# ---- standard output that cannot be written (/dev/full): exit 1, never a silent 0
for command in "generate -m $char -p ROMEO -n 2 --backend cpu" \
               "generate -m $char -p ROMEO -n 2 --backend cpu --json" \
               "tokenize -m $char ROMEO" "tokenize -m $char --json ROMEO" \
               "score -m $char --text ROMEO: --backend cpu" \
               "score -m $char --text ROMEO: --backend cpu --json" \
               "trace -m $char -p ROMEO -n 2 --backend cpu -o $scratch/x.ndjson" \
               "bench --config 1,2,8,32,11 --backend cpu -p 4 -n 2 --gen-prompt 2 -r 1" \
               "--help" "train --help"; do
  # shellcheck disable=SC2086
  output=$("$wgpt" $command 2>&1 >/dev/full)
  status=$?
  [ $status -eq 1 ] || fail "wgpt $command > /dev/full: exit $status, expected 1"
  grep -q "cannot write standard output: No space left on device" <<<"$output" ||
    fail "wgpt $command > /dev/full: $output"
done

# ---- kill -9 at every step of writing a checkpoint: the directory loads with one version, and
# the resumed run ends with the very model of a run never interrupted
"$wgpt" train "${small[@]}" --steps 4 --checkpoint-every 2 --out "$scratch/whole" 2>/dev/null ||
  fail "the uninterrupted run failed"
"$wgpt" train "${small[@]}" --steps 2 --checkpoint-every 2 --out "$scratch/half" 2>/dev/null ||
  fail "the half run failed"
cp -r "$scratch/half" "$scratch/counted"
WGPT_FAULT_PATH="$scratch/counted/" WGPT_FAULT_COUNT_TO="$scratch/count" faulty \
  "$wgpt" train "${small[@]}" --steps 4 --checkpoint-every 2 --resume --out "$scratch/counted" 2>/dev/null
operations=$(cat "$scratch/count" 2>/dev/null || echo 0)
[ "$operations" -gt 20 ] || fail "the shim counted $operations file operations in a checkpoint"
every=$(((operations + 29) / 30))
echo "kill -9 before each of $(((operations + every - 1) / every)) of the $operations file operations of a resumed run"
for ((at = 1; at <= operations; at += every)); do
  run=$scratch/kill$at
  cp -r "$scratch/half" "$run"
  WGPT_FAULT_PATH="$run/" WGPT_FAULT_KILL_AT=$at faulty \
    "$wgpt" train "${small[@]}" --steps 4 --checkpoint-every 2 --resume --out "$run" 2>/dev/null
  status=$?
  [ $status -eq 137 ] || fail "kill at operation $at of $operations: exit $status, expected 137"
  "$wgpt" generate -m "$run" -p "the" -n 1 --backend cpu >/dev/null 2>"$scratch/err" ||
    fail "kill at operation $at: the directory does not load: $(cat "$scratch/err")"
  one_version "$run" || fail "kill at operation $at: the weights and the training state differ"
  "$wgpt" train "${small[@]}" --steps 4 --checkpoint-every 2 --resume --out "$run" 2>"$scratch/err" ||
    fail "kill at operation $at: no resume: $(cat "$scratch/err")"
  cmp -s "$run/model.safetensors" "$scratch/whole/model.safetensors" ||
    fail "kill at operation $at: the resumed run's weights differ from the uninterrupted run's"
  [ -z "$(leftovers "$run")" ] || fail "kill at operation $at: the resumed run left $(leftovers "$run")"
  rm -rf "$run"
done

# ---- signals at random moments of a run that checkpoints every step: the default action ends it
# (exit 128 + n); what it leaves loads with one version, and the next run resumes and tidies it
wait_for() { for _ in $(seq 1 400); do [ -e "$1" ] && return 0; sleep 0.05; done; return 1; }
larger=(--data "$scratch/text.txt" --layers 2 --heads 2 --embd 64 --ctx 16 --batch 2 --eval-windows 2
        --backend cpu)
set -m  # job control: without it a background job ignores SIGINT
attempt=0
for signal in TERM INT HUP TERM INT HUP; do
  attempt=$((attempt + 1))
  run=$scratch/signal$attempt
  "$wgpt" train "${larger[@]}" --steps 100000 --checkpoint-every 1 --out "$run" 2>/dev/null &
  pid=$!
  wait_for "$run/train_state.safetensors" || fail "the run to signal never checkpointed"
  sleep "0.$((attempt * 173 % 100))"
  kill -s "$signal" $pid
  wait $pid
  status=$?
  [ $status -eq $((128 + $(kill -l "$signal"))) ] || fail "SIG$signal: exit $status"
  "$wgpt" generate -m "$run" -p "the" -n 1 --backend cpu >/dev/null 2>&1 || fail "SIG$signal: does not load"
  one_version "$run" || fail "SIG$signal: the weights and the training state differ"
  saved=$(grep -o '"step":[0-9]*' "$run/metrics.jsonl" | tail -1 | cut -d: -f2)
  "$wgpt" train "${larger[@]}" --steps $((saved + 1)) --resume --out "$run" 2>"$scratch/err" ||
    fail "SIG$signal: no resume: $(cat "$scratch/err")"
  [ -z "$(leftovers "$run")" ] || fail "SIG$signal: the next run left $(leftovers "$run")"
done
set +m

# ---- two runs into one directory: the second is refused at once, naming the first
busy=$scratch/busy
"$wgpt" train "${small[@]}" --steps 100000 --checkpoint-every 1 --out "$busy" 2>/dev/null &
pid=$!
wait_for "$busy/train_state.safetensors" || fail "the first run never checkpointed"
expect_error "a second run into a busy directory" "$busy is being written by another wgpt run (pid $pid)" \
  "$wgpt" train "${small[@]}" --steps 2 --out "$busy"
# Readers beside the writer always find one version.
for _ in $(seq 1 10); do
  "$wgpt" generate -m "$busy" -p "the" -n 1 --backend cpu >/dev/null 2>"$scratch/err" ||
    fail "a reader beside a training run: $(cat "$scratch/err")"
  one_version "$busy" || fail "a reader beside a training run saw two versions"
done
kill $pid
wait $pid 2>/dev/null
# A model directory rewritten with another shape again and again: a reader never sees the config
# of one beside the weights of the other.
shapes=$scratch/shapes
mkdir -p "$shapes"
python3 -c 'import json; print(json.dumps({c: i for i, c in enumerate("abcdefghijk")}))' >"$shapes/vocab.json"
"$wgpt" init --config 1,2,8,8,11 -o "$shapes" 2>/dev/null
(for i in $(seq 1 40); do
   "$wgpt" init --config "$((i % 2 + 1)),2,$((8 * (i % 2 + 1))),8,11" -o "$shapes" 2>/dev/null
 done) &
writer=$!
readers_failed=0
while kill -0 $writer 2>/dev/null; do
  "$wgpt" generate -m "$shapes" -p "ab" -n 1 --backend cpu >/dev/null 2>"$scratch/err" ||
    { readers_failed=1; echo "reader: $(cat "$scratch/err")"; }
done
wait $writer
[ $readers_failed -eq 0 ] || fail "a reader saw a mix of two model shapes"

# ---- FIFOs, devices, directories and links where files belong: refused at once, never waited on
# (a FIFO as the weights used to hang `wgpt capture` forever)
special=$scratch/special
mkdir -p "$special" && cp "$char"/{config.json,vocab.json} "$special"/
mkfifo "$special/model.safetensors"
expect_error "a FIFO as the weights" "model.safetensors: it is a FIFO, not a regular file" \
  timeout 20 "$wgpt" capture -m "$special" -p ROMEO -o "$scratch/c2.safetensors" --backend cpu
rm "$special/model.safetensors" && ln -s /dev/zero "$special/model.safetensors"
expect_error "a device as the weights" "it is a character device, not a regular file" \
  timeout 20 "$wgpt" generate -m "$special" -p ROMEO --backend cpu
rm "$special/model.safetensors" && cp "$char/model.safetensors" "$special/"
mv "$special/config.json" "$special/config.real" && mkfifo "$special/config.json"
expect_error "a FIFO as config.json" "config.json: it is a FIFO" timeout 20 "$wgpt" generate -m "$special" -p ROMEO --backend cpu
rm "$special/config.json" && mv "$special/config.real" "$special/config.json"
mv "$special/vocab.json" "$special/vocab.real" && mkfifo "$special/vocab.json"
expect_error "a FIFO as vocab.json" "vocab.json: it is not a regular file" timeout 20 "$wgpt" tokenize -m "$special" ROMEO
mkfifo "$scratch/fifo.txt"
expect_error "a FIFO as the training text" "it is a FIFO" \
  timeout 20 "$wgpt" train --data "$scratch/fifo.txt" --out "$scratch/o" --backend cpu
expect_error "a FIFO as the text to score" "it is a FIFO" \
  timeout 20 "$wgpt" score -m "$char" --file "$scratch/fifo.txt" --backend cpu
# A device node given as -o used to become a regular file.
expect_error "a device as the output" "cannot write /dev/null: it is a character device" \
  "$wgpt" capture -m "$char" --ids 1,2 -o /dev/null --backend cpu
[ -c /dev/null ] || fail "/dev/null is no longer a device"
expect_error "a FIFO as the output" "it is a FIFO, and wgpt only replaces regular files" \
  timeout 20 "$wgpt" trace -m "$char" -p ROMEO -n 2 -o "$scratch/fifo.txt" --backend cpu
expect_error "a directory as the output" "it is a directory" \
  "$wgpt" capture -m "$char" --ids 1,2 -o "$scratch" --backend cpu
echo "target" >"$scratch/target.txt" && ln -s "$scratch/target.txt" "$scratch/link.ndjson"
expect_error "a link as the output" "it is a symbolic link" \
  "$wgpt" trace -m "$char" -p ROMEO -n 2 -o "$scratch/link.ndjson" --backend cpu
[ "$(cat "$scratch/target.txt")" = "target" ] || fail "the link's target changed"

# ---- temporaries of killed runs are removed by the next run; a live writer's are kept
dead=4000000
while kill -0 $dead 2>/dev/null; do dead=$((dead - 1)); done
touch "$out/config.json.tmp.$dead.0" "$out/model.safetensors.tmp.$dead.7" "$out/notes.txt.tmp.$$.0"
"$wgpt" train "${small[@]}" --steps 5 --resume --out "$out" 2>"$scratch/err" || fail "resume failed: $(cat "$scratch/err")"
grep -q "removed 2 temporary file(s) a killed run left in $out" "$scratch/err" ||
  fail "the next run did not report the temporaries it removed: $(cat "$scratch/err")"
[ "$(leftovers "$out")" = "notes.txt.tmp.$$.0 " ] || fail "after tidying: $(leftovers "$out")"
finish
