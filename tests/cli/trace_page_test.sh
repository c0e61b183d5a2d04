#!/usr/bin/env bash
# wgpt trace --html: the page renders in headless Chromium, logs no errors, loads nothing else,
# and hovering, clicking and keys change the view (tests/browser/trace_page_test.mjs).
source "$(dirname "$0")/cli_support.sh"
tiny=$root/tests/fixtures/hf/gpt2-tiny
# Markup in the prompt must stay text: the run's data sits inside a <script> element.
prompt=$'Hello </script><!-- "quoted" & <b>bold</b>\nnext line'

"$wgpt" trace -m "$tiny" -p "$prompt" -n 8 --top 5 --seed 3 --html "$scratch/trace.html" \
  --backend cpu >/dev/null 2>"$scratch/err" || fail "trace --html failed: $(cat "$scratch/err")"
grep -q "wrote the trace page" "$scratch/err" || fail "no 'wrote the trace page' line: $(cat "$scratch/err")"
grep -q '/\*WGPT_TRACE_DATA\*/' "$scratch/trace.html" && fail "the page's data slot was not filled"
node "$root/tests/browser/trace_page_test.mjs" "$scratch/trace.html" 8 5 '</script><!-- "quoted"' ||
  fail "the trace page's browser checks failed"
finish
