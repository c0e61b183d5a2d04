#!/usr/bin/env bash
# `wgpt serve` over HTTP, with curl and with the OpenAI client library: the endpoints and their
# answers (the same text as `wgpt generate`), SSE streaming, every bad-input class with its status
# and error object, the API key, the queue's 429, cancellation when a client disconnects, and
# SIGTERM letting streams finish (or ending them with an error event after the grace period).
source "$(dirname "$0")/../cli/cli_support.sh"
source "$(dirname "$0")/serve_support.sh"
tiny=$root/tests/fixtures/hf/gpt2-tiny
api_key=sk-wgpt-test
# A long grace period: a loaded machine may take seconds per token.
start_server api -m "$tiny" --parallel 1 --queue 1 --api-key "$api_key" --max-body 4096 \
  --shutdown-grace 300
url=http://127.0.0.1:$api_port
auth=(-H "Authorization: Bearer $api_key")

# call METHOD PATH [BODY]: the status; the body is in $scratch/body, the headers in $scratch/head.
call() {
  local args=(-s -o "$scratch/body" -D "$scratch/head" -w '%{http_code}' -X "$1" "${auth[@]}")
  [ $# -ge 3 ] && args+=(--data-binary "$3")
  curl "${args[@]}" "$url$2"
}

# expect_error STATUS TYPE FRAGMENT METHOD PATH [BODY]: the status and OpenAI's error object.
expect_api_error() {
  local status=$1 type=$2 fragment=$3
  shift 3
  local got
  got=$(call "$@")
  if [ "$got" != "$status" ]; then
    fail "$*: status $got, expected $status: $(cat "$scratch/body")"
  elif [ "$(json 'd.error.type' <"$scratch/body")" != "$type" ] ||
    ! json 'd.error.message' <"$scratch/body" | grep -qF -- "$fragment"; then
    fail "$*: expected a $type saying '$fragment': $(cat "$scratch/body")"
  fi
}

# The key: /health needs none, everything else wants it.
[ "$(curl -s "$url/health")" = '{"status":"ok"}' ] || fail "/health without a key"
auth=()
expect_api_error 401 authentication_error "no API key given" GET /v1/models
auth=(-H "Authorization: Bearer sk-guess")
expect_api_error 401 authentication_error "not this server's" GET /v1/models
auth=(-H "Authorization: Bearer $api_key")
[ "$(call GET /v1/models)" = 200 ] && [ "$(json 'd.data[0].id' <"$scratch/body")" = gpt2-tiny ] ||
  fail "/v1/models: $(cat "$scratch/body")"

# The server's text is `wgpt generate`'s for the same prompt, options and seed.
prompt="Hello, my dog"
# (The greedy run comes last: the streaming check below compares with its text.)
for options in "--seed 3:\"seed\": 3" \
  "--seed 5 --top-k 20 --min-p 0.05 --repeat-penalty 1.3 --repeat-last-n 8 --presence-penalty 0.5 --frequency-penalty 0.25:\"seed\": 5, \"top_k\": 20, \"min_p\": 0.05, \"repeat_penalty\": 1.3, \"repeat_last_n\": 8, \"presence_penalty\": 0.5, \"frequency_penalty\": 0.25" \
  "--greedy --logit-bias 13=-inf --logit-bias 11=2.5:\"temperature\": 0, \"logit_bias\": {\"13\": -100, \"11\": 2.5}" \
  "--greedy:\"temperature\": 0"; do
  cli=$("$wgpt" generate -m "$tiny" -p "$prompt" -n 4 ${options%%:*} --json 2>/dev/null | json 'd.text')
  call POST /v1/completions "{\"prompt\": \"$prompt\", \"max_tokens\": 4, ${options#*:}}" >/dev/null
  [ "$(json 'd.choices[0].text' <"$scratch/body")" = "$cli" ] ||
    fail "completion with ${options%%:*} differs from wgpt generate's '$cli': $(cat "$scratch/body")"
done
whole=$(json 'd.choices[0].text' <"$scratch/body")

# Streaming: server-sent events, each `data: {chunk}`, ending with `data: [DONE]`.
call POST /v1/completions "{\"prompt\": \"$prompt\", \"max_tokens\": 4, \"temperature\": 0, \"stream\": true}" >/dev/null
grep -qi '^content-type: text/event-stream' "$scratch/head" || fail "stream content type: $(cat "$scratch/head")"
grep -v '^$' "$scratch/body" | grep -qv '^data: ' && fail "a stream line without 'data: ': $(cat "$scratch/body")"
[ "$(grep -v '^$' "$scratch/body" | tail -1)" = "data: [DONE]" ] || fail "the stream does not end with [DONE]"
streamed=$(grep '^data: {' "$scratch/body" | sed 's/^data: //' |
  node -e 'let t = ""; for (const l of require("fs").readFileSync(0, "utf8").trim().split("\n"))
             t += JSON.parse(l).choices[0].text; process.stdout.write(t)')
[ "$streamed" = "$whole" ] || fail "streamed text '$streamed' differs from '$whole'"

# The other endpoints.
[ "$(call POST /tokenize '{"content": "Hello world"}')" = 200 ] && [ "$(cat "$scratch/body")" = '{"tokens":[15496,995]}' ] ||
  fail "/tokenize: $(cat "$scratch/body")"
[ "$(call POST /detokenize '{"tokens": [15496, 995]}')" = 200 ] && [ "$(cat "$scratch/body")" = '{"content":"Hello world"}' ] ||
  fail "/detokenize: $(cat "$scratch/body")"
call POST /v1/score '{"prompt": "Hello world again", "top_logprobs": 2}' >/dev/null
[ "$(json '[d.tokens.length, d.tokens[0].bits, d.tokens[1].top_logprobs.length, d.perplexity > 1]' <"$scratch/body")" = '[3,null,2,true]' ] ||
  fail "/v1/score: $(cat "$scratch/body")"
call POST /v1/chat/completions '{"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 2}' >/dev/null
[ "$(json 'd.choices[0].message.role' <"$scratch/body")" = assistant ] || fail "chat: $(cat "$scratch/body")"

# Every bad-input class, over HTTP.
expect_api_error 400 invalid_request_error "not valid JSON" POST /v1/completions '{"prompt": '
expect_api_error 400 invalid_request_error "Unrecognized request argument supplied: temprature" \
  POST /v1/completions '{"prompt": "a", "temprature": 1}'
expect_api_error 400 invalid_request_error "'prompt' is empty" POST /v1/completions '{"prompt": ""}'
expect_api_error 400 invalid_request_error "integers from 0 to 50256" POST /v1/completions '{"prompt": [50257]}'
expect_api_error 400 invalid_request_error "maximum context length is 128 tokens" \
  POST /v1/completions '{"prompt": "a", "max_tokens": 200}'
expect_api_error 400 invalid_request_error "'temperature' must be between 0 and 2" \
  POST /v1/completions '{"prompt": "a", "temperature": 9}'
expect_api_error 400 invalid_request_error "'presence_penalty' must be between -2 and 2" \
  POST /v1/completions '{"prompt": "a", "presence_penalty": 3}'
expect_api_error 400 invalid_request_error "'logit_bias' keys must be token ids from 0 to 50256" \
  POST /v1/completions '{"prompt": "a", "logit_bias": {"50257": 1}}'
expect_api_error 400 invalid_request_error "'logit_bias.13' must be between -100 and 100" \
  POST /v1/completions '{"prompt": "a", "logit_bias": {"13": 101}}'
expect_api_error 400 invalid_request_error "'repeat_penalty' must be greater than 0" \
  POST /v1/completions '{"prompt": "a", "repeat_penalty": 0}'
expect_api_error 404 not_found_error "The model 'gpt-4' does not exist" \
  POST /v1/completions '{"prompt": "a", "model": "gpt-4"}'
expect_api_error 400 invalid_request_error "must be system, developer, user or assistant" \
  POST /v1/chat/completions '{"messages": [{"role": "tool", "content": "x"}]}'
expect_api_error 404 not_found_error "there is no endpoint GET /v1/completions" GET /v1/completions
expect_api_error 404 not_found_error "there is no endpoint POST /v2/engines" POST /v2/engines '{}'
expect_api_error 413 invalid_request_error "larger than this server's limit of 4096 bytes" \
  POST /v1/completions "{\"prompt\": \"$(head -c 5000 /dev/zero | tr '\0' a)\"}"
expect_api_error 400 invalid_request_error "'content' is required" POST /tokenize '{}'
expect_api_error 400 invalid_request_error "integers from 0 to 50256, not 99999" POST /detokenize '{"tokens": [99999]}'
expect_api_error 400 invalid_request_error "at least two tokens" POST /v1/score '{"prompt": "Hello"}'
expect_api_error 400 invalid_request_error "more than the model's context of 128" \
  POST /v1/score "{\"prompt\": \"$(printf 'word %.0s' {1..140})\"}"

# The OpenAI client library, streaming and not.
node "$root/tests/serve/openai_client_test.mjs" "$url" "$api_key" gpt2-tiny || fail "the OpenAI client checks"

# One slot and a queue of one: a third request gets 429 with Retry-After. A client that
# disconnects frees its slot for the one waiting.
stream_body='{"prompt": "Once upon a time", "max_tokens": 100, "stream": true}'
curl -sN "${auth[@]}" "$url/v1/completions" -d "$stream_body" >"$scratch/first.sse" &
first=$!
wait_until 60 grep -q '"text"' "$scratch/first.sse" || fail "the first stream did not start"
curl -sN "${auth[@]}" "$url/v1/completions" -d "$stream_body" >"$scratch/second.sse" &
second=$!
wait_until 30 metric_is "$api_port" wgpt_queue_depth 1 || fail "the second request is not queued"
expect_api_error 429 rate_limit_error "its queue of 1 is full" POST /v1/completions '{"prompt": "a"}'
grep -qi '^retry-after: 1' "$scratch/head" || fail "429 without Retry-After: $(cat "$scratch/head")"
kill "$first"
wait_until 30 grep -q '"text"' "$scratch/second.sse" || fail "the freed slot did not go to the waiting request"
metric_is "$api_port" wgpt_sequences_cancelled_total 1 || fail "the disconnect was not counted"
kill "$second"
wait_until 30 metric_is "$api_port" wgpt_slots_busy 0 || fail "the slot stayed busy after a disconnect"
# A client that gives up on a non-streaming request frees its slot too.
curl -s -m 2 "${auth[@]}" "$url/v1/completions" -d '{"prompt": "a", "max_tokens": 100}' >/dev/null
wait_until 30 metric_is "$api_port" wgpt_sequences_cancelled_total 3 ||
  fail "a non-streaming request's disconnect was not noticed"
wait_until 30 metric_is "$api_port" wgpt_slots_busy 0 || fail "the slot stayed busy"
curl -s "${auth[@]}" "$url/metrics" | grep -q '^wgpt_requests_total{endpoint="/v1/completions",status="429"} 1$' ||
  fail "/metrics lacks the 429"

# SIGTERM: running streams finish, new requests get 503, the server exits 0. The stream is long
# enough to be running still when both 503 checks are answered (at 4 tokens a loaded machine
# finished it first, and the server had exited before the second check).
curl -sN "${auth[@]}" "$url/v1/completions" \
  -d '{"prompt": "a", "max_tokens": 64, "ignore_eos": true, "stream": true}' >"$scratch/last.sse" &
last=$!
wait_until 60 grep -q '"text"' "$scratch/last.sse" || fail "the last stream did not start"
kill -TERM "$api_pid"
expect_api_error 503 server_error "shutting down" GET /health
expect_api_error 503 server_error "shutting down" POST /v1/completions '{"prompt": "a"}'
wait "$last"
[ "$(grep -v '^$' "$scratch/last.sse" | tail -1)" = "data: [DONE]" ] && grep -q '"finish_reason":"length"' "$scratch/last.sse" ||
  fail "the stream running at SIGTERM did not finish: $(cat "$scratch/last.sse")"
wait_for_exit "$api_pid" 30 || fail "the server's exit status after SIGTERM: $?"
grep -q "wgpt serve: stopped" "$scratch/api.log" || fail "no 'stopped' in the log"

# With no grace period, a running stream ends with an error event and no [DONE].
start_server graceless -m "$tiny" --shutdown-grace 0
curl -sN "http://127.0.0.1:$graceless_port/v1/completions" -d "$stream_body" >"$scratch/cut.sse" &
cut=$!
wait_until 60 grep -q '"text"' "$scratch/cut.sse" || fail "the stream did not start"
kill -TERM "$graceless_pid"
wait "$cut"
[ "$(grep -v '^$' "$scratch/cut.sse" | tail -1 | sed 's/^data: //' | json 'd.error.code')" = shutting_down ] ||
  fail "a stream cut by shutdown does not end with an error event: $(tail -2 "$scratch/cut.sse")"
grep -q '\[DONE\]' "$scratch/cut.sse" && fail "a cut stream must not say [DONE]"
wait_for_exit "$graceless_pid" 30 || fail "the server's exit status after SIGTERM: $?"
finish
