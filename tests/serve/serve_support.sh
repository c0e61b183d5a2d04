# Sourced by the serve tests, after tests/cli/cli_support.sh: starting and stopping `wgpt serve`
# on a free port, and HTTP helpers on curl.

# The pinned OpenAI client (scripts/setup.sh).
openai_package=$root/.deps/npm/openai
[ -f "$openai_package/index.js" ] || { echo "FAIL: $openai_package is missing: run scripts/setup.sh"; exit 1; }

servers=()
stop_servers() {
  for pid in "${servers[@]}"; do kill -9 "$pid" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$scratch"
}
trap stop_servers EXIT

# start_server NAME ARGS...: runs `wgpt serve ARGS --port 0` in the background; sets NAME_pid and
# NAME_port once it listens (its stderr goes to $scratch/NAME.log).
start_server() {
  local name=$1
  shift
  # The GPU path (its timing is what the busy-server checks expect), also on a software adapter.
  "$wgpt" serve --backend gpu "$@" --port 0 2>"$scratch/$name.log" &
  local pid=$!
  servers+=("$pid")
  local port=""
  for _ in $(seq 1 600); do
    port=$(grep -o 'listening on http://[^ ]*:[0-9]*' "$scratch/$name.log" | grep -o '[0-9]*$')
    [ -n "$port" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$port" ]; then
    echo "FAIL: wgpt serve $* did not start:"
    cat "$scratch/$name.log"
    exit 1
  fi
  printf -v "${name}_pid" '%s' "$pid"
  printf -v "${name}_port" '%s' "$port"
}

# wait_for_exit PID SECONDS: the process's exit status, or 124 when it outlives the wait.
wait_for_exit() {
  local pid=$1
  for _ in $(seq 1 $(($2 * 10))); do
    if ! kill -0 "$pid" 2>/dev/null; then
      wait "$pid"
      return $?
    fi
    sleep 0.1
  done
  return 124
}

# metric PORT NAME: the value of an unlabelled series from /metrics.
metric() {
  curl -s -H "Authorization: Bearer ${api_key:-}" "http://127.0.0.1:$1/metrics" |
    awk -v name="$2" '$1 == name { print $2 }'
}

metric_is() { [ "$(metric "$1" "$2")" = "$3" ]; }

# wait_until SECONDS COMMAND...: runs the command every 0.1 s until it succeeds; fails otherwise.
wait_until() {
  local seconds=$1
  shift
  for _ in $(seq 1 $((seconds * 10))); do
    "$@" && return 0
    sleep 0.1
  done
  return 1
}

# A free TCP port on 127.0.0.1 (for nginx, which cannot report the one it took).
free_port() {
  node -e "const s = require('net').createServer().listen(0, '127.0.0.1', () => {
             console.log(s.address().port); s.close(); });"
}

# json EXPRESSION < FILE: a JavaScript expression over the parsed JSON `d`, printed (strings as
# they are, anything else as JSON).
json() {
  node -e 'const d = JSON.parse(require("fs").readFileSync(0, "utf8"));
           const v = eval(process.argv[1]);
           console.log(typeof v === "string" ? v : JSON.stringify(v));' "$1"
}
