#!/usr/bin/env bash
# One rule for every input value (docs/reliability.md): numbers on the command line within their
# ranges, config.json and train_state checked with the file named, non-finite weights refused
# (with an opt-out), unused or ambiguous tensors and weight files reported, plain messages where
# library exceptions used to surface. Each case is a defect this suite once found.
source "$(dirname "$0")/cli_support.sh"
tiny=$root/tests/fixtures/hf/gpt2-tiny
char=$root/tests/fixtures/hf/char-tiny
for i in $(seq 1 200); do echo "the quick brown fox jumps over the lazy dog, line $i."; done >"$scratch/text.txt"
small=(--data "$scratch/text.txt" --layers 1 --heads 2 --embd 16 --ctx 16 --batch 2 --eval-windows 2 --backend cpu)

# ---- numbers on the command line: no wrap-around, no division by zero, on either backend
for backend in cpu gpu; do
  expect_usage_error "--heads 0 ($backend)" "--heads: '0' is not a whole number from 1 to 65536" \
    "$wgpt" train "${small[@]}" --backend "$backend" --heads 0 --out "$scratch/o"
done
expect_usage_error "--layers 0" "--layers: '0' is not a whole number" "$wgpt" train "${small[@]}" --layers 0 --out "$scratch/o"
[ -e "$scratch/o" ] && fail "a refused command line created its output directory"
expect_usage_error "negative count" "--tokens: '-1' is not a whole number" "$wgpt" generate -m "$char" -p a -n -1
expect_usage_error "overflowing count" "--top-k: '99999999999999999999' is not a whole number" \
  "$wgpt" generate -m "$char" -p a --top-k 99999999999999999999
expect_usage_error "negative seed" "--seed: '-1' is not a whole number" "$wgpt" init --config 1,2,8,8,11 -o "$scratch/o" --seed -1
expect_usage_error "NaN rate" "--lr: 'nan' is not a number" "$wgpt" train "${small[@]}" --lr nan --out "$scratch/o"
expect_usage_error "infinite temperature" "--temp: 'inf' is not a number" "$wgpt" generate -m "$char" -p a --temp inf
expect_usage_error "float overflow" "--clip: '1e39' is not a number" "$wgpt" train "${small[@]}" --clip 1e39 --out "$scratch/o"
expect_error "trailing comma in --ids" "--ids: '' is not a token id" \
  "$wgpt" capture -m "$char" --ids 1,2, -o "$scratch/x.safetensors" --backend cpu
[ -e "$scratch/x.safetensors" ] && fail "a refused --ids wrote its output"
expect_error "a zero in a named shape" "model config '1,0,8,8,11': n_head must be from 1 to 8" \
  "$wgpt" bench --config 1,0,8,8,11 --backend cpu -r 1
# A shape too large to allocate is an error that says so, not std::bad_alloc (an address-space
# limit makes the failure certain whatever the machine's memory).
output=$(ulimit -v 4000000; "$wgpt" init --config 1,1,65536,1048576,16777216 -o "$scratch/huge" 2>&1)
status=$?
[ $status -eq 1 ] || fail "a model too large for memory: exit $status, expected 1"
grep -q "not enough memory for a model of" <<<"$output" || fail "a model too large for memory: $output"

# ---- config.json: every field checked, the file named
bad=$scratch/bad
mkdir -p "$bad" && cp "$char"/{model.safetensors,vocab.json} "$bad"/
configure() { sed "s/\"n_head\": 2/$1/" "$char/config.json" >"$bad/config.json"; }
configure '"n_head": 0'
expect_error "config n_head 0" "$bad/config.json: field 'n_head' must be a whole number" "$wgpt" generate -m "$bad" -p a --backend cpu
configure '"n_head": 1e400'
expect_error "config number overflow" "$bad/config.json: not a valid config" "$wgpt" generate -m "$bad" -p a --backend cpu
configure '"n_head": 2, "eos_token_id": 65'
expect_error "config eos outside the vocabulary" "field 'eos_token_id' must be an id below vocab_size" \
  "$wgpt" generate -m "$bad" -p a --backend cpu
configure '"n_head": 2'
expect_error "-m naming a file" "$bad/config.json is not a directory" "$wgpt" generate -m "$bad/config.json" -p a
expect_error "tokenize -m naming a file" "is not a directory" "$wgpt" tokenize -m "$bad/config.json" a

# ---- weights: non-finite values, tensors the model does not use, two weight files
python3 - "$bad/model.safetensors" <<'PY' || fail "cannot put a NaN into the weights"
import json, struct, sys
data = bytearray(open(sys.argv[1], 'rb').read())
size = struct.unpack('<Q', data[:8])[0]
begin = json.loads(data[8:8 + size])['h.0.mlp.c_fc.weight']['data_offsets'][0]
data[8 + size + begin + 12:8 + size + begin + 16] = struct.pack('<f', float('nan'))
open(sys.argv[1], 'wb').write(data)
PY
expect_error "a NaN weight" "tensor 'h.0.mlp.c_fc.weight' holds nan at element 3" "$wgpt" generate -m "$bad" -p a --backend cpu
"$wgpt" generate -m "$bad" -p a -n 1 --backend cpu --allow-non-finite >/dev/null 2>&1 ||
  fail "--allow-non-finite did not load the checkpoint"
cp "$char/model.safetensors" "$bad/"
cp "$tiny/model.safetensors" "$bad/model.fzm"
expect_error "two weight files" "holds both model.safetensors and model.fzm" "$wgpt" generate -m "$bad" -p a --backend cpu
rm "$bad/model.fzm"
sed 's/"n_layer": 2/"n_layer": 1/' "$char/config.json" >"$bad/config.json"
expect_error "unused tensors" "tensor(s) the model does not use ('h.1." "$wgpt" generate -m "$bad" -p a --backend cpu
cp "$char/config.json" "$bad/"

# ---- tokenizer files
bpe=$scratch/bpe
mkdir -p "$bpe" && cp "$tiny"/{config.json,model.safetensors,vocab.json} "$bpe"/
: >"$bpe/merges.txt"
expect_error "empty merges.txt" "merges.txt holds no merges" "$wgpt" generate -m "$bpe" -p a --backend cpu
expect_error "tokenize with empty merges.txt" "merges.txt holds no merges" "$wgpt" tokenize -m "$bpe" a

# ---- training inputs
expect_error "a sample prompt outside the vocabulary" "--sample-prompt: character 'T'" \
  "$wgpt" train "${small[@]}" --steps 2 --sample-every 1 --out "$scratch/o"
: >"$scratch/empty.txt"
expect_error "empty training text" "the training text $scratch/empty.txt is empty" \
  "$wgpt" train --data "$scratch/empty.txt" --out "$scratch/o" --backend cpu
"$wgpt" train "${small[@]}" --steps 2 --out "$scratch/run" 2>/dev/null || fail "a tiny run failed"
python3 - "$scratch/run/train_state.safetensors" <<'PY' || fail "cannot damage the checkpoint"
import json, struct, sys
path = sys.argv[1]
data = open(path, 'rb').read()
size = struct.unpack('<Q', data[:8])[0]
header = json.loads(data[8:8 + size])
header['__metadata__']['step'] = 'two'
text = json.dumps(header).encode()
text += b' ' * ((8 - len(text) % 8) % 8)
open(path, 'wb').write(struct.pack('<Q', len(text)) + text + data[8 + size:])
PY
expect_error "a damaged train_state" "the checkpoint's 'step' is \"two\", not a whole number" \
  "$wgpt" train "${small[@]}" --steps 4 --resume --out "$scratch/run"
finish
