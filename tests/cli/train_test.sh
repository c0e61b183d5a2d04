#!/usr/bin/env bash
# wgpt data brown and wgpt train from the command line: the corpus text, a training run and its
# files, exact resumption, a kill during a checkpoint write, and bad input. Small models on the CPU
# reference (fast on any machine), and one run on the GPU.
source "$(dirname "$0")/cli_support.sh"

# ---- wgpt data brown
text=$scratch/brown.txt
"$wgpt" data brown -o "$text" 2>/dev/null || fail "data brown failed"
"$wgpt" data brown -o "$scratch/again.txt" 2>/dev/null
cmp -s "$text" "$scratch/again.txt" || fail "data brown is not deterministic"
[[ "$(head -c 60 "$text")" == "The Fulton County Grand Jury said Friday an investigation of"* ]] ||
  fail "the corpus text does not start with its first sentence: $(head -c 60 "$text")"
grep -qE '[a-z]/(nn|vbd|at|in)\b' "$text" && fail "POS tags remain in the text"
grep -q '"no evidence" that' "$text" || fail "quotes are not rejoined"
[ "$(grep -c '^$' "$text")" -gt 10000 ] || fail "paragraph breaks are missing"
expect_error "no corpus" "no Brown corpus files" "$wgpt" data brown -o "$scratch/x.txt" --corpus "$scratch"

# A small slice of it to train on.
head -c 30000 "$text" >"$scratch/train.txt"
run_options=(--batch 4 --warmup 2 --eval-windows 4 --backend cpu)
tiny=(--data "$scratch/train.txt" --layers 1 --heads 2 --embd 16 --ctx 16 "${run_options[@]}")

# ---- a run: its files, its log, its loss going down
"$wgpt" train "${tiny[@]}" --steps 40 --lr 1e-2 --eval-every 20 --checkpoint-every 20 \
  --out "$scratch/run" 2>"$scratch/run.log" || fail "train failed: $(tail -3 "$scratch/run.log")"
for file in config.json model.safetensors vocab.json train_state.safetensors metrics.jsonl loss.svg; do
  [ -s "$scratch/run/$file" ] || fail "the run did not write $file"
done
grep -q "tok/s" "$scratch/run.log" || fail "no progress line with tokens/s"
grep -q "held-out loss" "$scratch/run.log" || fail "no held-out loss reported"
[ "$(grep -c '"loss"' "$scratch/run/metrics.jsonl")" -eq 40 ] || fail "metrics.jsonl lacks a line per step"
[ "$(grep -c '"val_loss"' "$scratch/run/metrics.jsonl")" -eq 2 ] || fail "metrics.jsonl lacks the evaluations"
grep -q "<svg" "$scratch/run/loss.svg" || fail "loss.svg is not an SVG"
loss_at() { grep "\"step\":$2," "$1" | grep -o '"loss":[0-9.e+-]*' | cut -d: -f2; }
awk -v first="$(loss_at "$scratch/run/metrics.jsonl" 1)" -v last="$(loss_at "$scratch/run/metrics.jsonl" 40)" \
  'BEGIN { exit !(last < first - 0.5) }' || fail "the loss did not fall: $(loss_at "$scratch/run/metrics.jsonl" 1) → $(loss_at "$scratch/run/metrics.jsonl" 40)"
"$wgpt" generate -m "$scratch/run" -p "The " -n 8 --backend cpu >/dev/null 2>&1 ||
  fail "wgpt generate cannot load the trained model"

# ---- resuming continues the same run exactly, dropout masks included (they are drawn from the
# seed and the step): 6 steps in one go = 3 steps, then 3 more
"$wgpt" train "${tiny[@]}" --dropout 0.1 --steps 6 --out "$scratch/whole" 2>/dev/null ||
  fail "6-step run failed"
"$wgpt" train "${tiny[@]}" --dropout 0.1 --steps 3 --out "$scratch/halves" 2>/dev/null ||
  fail "3-step run failed"
"$wgpt" train "${tiny[@]}" --dropout 0.1 --steps 6 --resume --out "$scratch/halves" \
  2>"$scratch/resume.log" ||
  fail "resume failed: $(tail -2 "$scratch/resume.log")"
grep -q "resuming .* at step 3" "$scratch/resume.log" || fail "the resume did not say where it starts"
cmp -s "$scratch/whole/model.safetensors" "$scratch/halves/model.safetensors" ||
  fail "the resumed run's weights differ from the uninterrupted run's"
for step in 4 5 6; do
  [ "$(loss_at "$scratch/whole/metrics.jsonl" $step)" = "$(loss_at "$scratch/halves/metrics.jsonl" $step)" ] ||
    fail "step $step's loss differs after resuming"
done
expect_error "resume into another shape" "cannot resume: the checkpoint in $scratch/halves has --layers 1" \
  "$wgpt" train --data "$scratch/train.txt" --layers 2 "${run_options[@]}" --steps 8 --resume \
  --out "$scratch/halves"

# ---- from a model directory (--init): its tokenizer and weights, fine-tuned
for _ in $(seq 1 40); do echo "ROMEO: But, soft! what light through yonder window breaks?"; done >"$scratch/romeo.txt"
char_tiny=$root/tests/fixtures/hf/char-tiny
"$wgpt" train --data "$scratch/romeo.txt" --init "$char_tiny" --ctx 32 --steps 3 "${run_options[@]}" \
  --out "$scratch/tuned" 2>"$scratch/tuned.log" || fail "--init failed: $(tail -2 "$scratch/tuned.log")"
cmp -s "$char_tiny/vocab.json" "$scratch/tuned/vocab.json" || fail "--init did not keep the model's vocabulary"
grep -q '"n_embd": 32' "$scratch/tuned/config.json" || fail "--init did not keep the model's shape"
expect_error "--init with text outside its vocabulary" "is not in the vocabulary" \
  "$wgpt" train --data "$scratch/train.txt" --init "$char_tiny" --ctx 32 --steps 1 "${run_options[@]}" \
  --out "$scratch/o"

# ---- a kill during a checkpoint write leaves the previous checkpoint loadable. A checkpoint every
# step of a 0.8M-parameter model that sees 1 × 2 tokens a step: writing takes about half of each
# step, so a kill often lands inside a write, and the temporary file it leaves proves it did.
killed_mid_write=0
for attempt in $(seq 1 20); do
  out=$scratch/killed$attempt
  "$wgpt" train --data "$scratch/train.txt" --layers 4 --heads 2 --embd 128 --ctx 2 --batch 1 \
    --steps 100000 --checkpoint-every 1 --eval-windows 2 --backend cpu --out "$out" 2>/dev/null &
  pid=$!
  # Once the first checkpoint is whole, kill at a varying moment of the ones that follow.
  for _ in $(seq 1 200); do [ -e "$out/train_state.safetensors" ] && break; sleep 0.05; done
  sleep "0.$((attempt * 37 % 100))"
  kill -9 $pid 2>/dev/null
  wait $pid 2>/dev/null
  if compgen -G "$out/*.tmp.*" >/dev/null; then
    killed_mid_write=1
    break
  fi
done
if [ $killed_mid_write -eq 0 ]; then
  fail "no kill landed inside a checkpoint write in 20 attempts"
else
  "$wgpt" generate -m "$out" -p "T" -n 1 --backend cpu >/dev/null 2>&1 ||
    fail "the model directory does not load after a kill during a checkpoint write"
  saved=$(grep -o '"step":[0-9]*' "$out/metrics.jsonl" | tail -1 | cut -d: -f2)
  "$wgpt" train --data "$scratch/train.txt" --layers 4 --heads 2 --embd 128 --ctx 2 --batch 1 \
    --steps $((saved + 1)) --eval-windows 2 --backend cpu --resume --out "$out" \
    2>"$scratch/killed.log" ||
    fail "cannot resume after a kill during a checkpoint write: $(tail -2 "$scratch/killed.log")"
  compgen -G "$out/*.tmp.*" >/dev/null && fail "the next run did not remove the killed run's temporaries"
fi

# ---- a non-finite loss stops the run and keeps the last good checkpoint
expect_error "non-finite loss" "the loss is" \
  "$wgpt" train --data "$scratch/train.txt" --steps 5 --lr 1e30 --checkpoint-every 1 --backend cpu \
  --layers 1 --heads 2 --embd 16 --ctx 16 --batch 4 --warmup 0 --eval-windows 4 --out "$scratch/nan"
grep -q '"step":1,' "$scratch/nan/metrics.jsonl" || fail "step 1 is not in the log"
"$wgpt" generate -m "$scratch/nan" -p "The " -n 2 --backend cpu >/dev/null 2>&1 ||
  fail "the last good checkpoint does not load after a non-finite loss"

# ---- on the GPU with dropout, exported as served: q4 with its metrics, loadable by wgpt generate
"$wgpt" train --data "$scratch/train.txt" --layers 1 --heads 2 --embd 32 --ctx 16 --batch 4 \
  --steps 3 --dropout 0.1 --eval-windows 2 --out "$scratch/gpu" --export-q4 "$scratch/q4" \
  2>"$scratch/gpu.log" ||
  fail "GPU training failed: $(tail -3 "$scratch/gpu.log")"
for file in config.json model.fzm vocab.json metrics.json; do
  [ -s "$scratch/q4/$file" ] || fail "--export-q4 did not write $file"
done
for field in held_out_loss held_out_loss_f32 train_loss steps command; do
  grep -q "\"$field\"" "$scratch/q4/metrics.json" || fail "metrics.json lacks $field"
done
grep -q '"dropout": 0.1,' "$scratch/q4/metrics.json" || fail "metrics.json does not record the dropout"
"$wgpt" generate -m "$scratch/q4" -p "The " -n 8 >/dev/null 2>&1 || fail "the q4 export does not load"

# ---- bad input
echo "too short" >"$scratch/short.txt"
expect_error "missing data" "cannot read $scratch/none.txt: no such file" \
  "$wgpt" train --data "$scratch/none.txt" --out "$scratch/o" --backend cpu
expect_error "data shorter than the context" "too few to hold out" \
  "$wgpt" train --data "$scratch/short.txt" --ctx 16 --backend cpu --out "$scratch/o"
expect_usage_error "dropout 1" "--dropout: '1' is not a number in [0, 1)" \
  "$wgpt" train "${tiny[@]}" --dropout 1 --out "$scratch/o"
expect_error "resume without a checkpoint" "holds no checkpoint" \
  "$wgpt" train "${tiny[@]}" --resume --out "$scratch/empty"
finish
