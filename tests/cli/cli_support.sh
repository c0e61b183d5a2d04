# Sourced by the command-line tests: $wgpt is the tool, $root the repository.
set -uo pipefail
wgpt=$1
root=$2
failures=0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect_error "what" "message fragment" command...: exits 1 (not a crash) and says the fragment.
expect_error() {
  local what=$1 fragment=$2
  shift 2
  local output status
  output=$("$@" 2>&1)
  status=$?
  if [ "$status" -ne 1 ]; then
    fail "$what: exit status $status, expected 1"
  elif ! grep -qF -- "$fragment" <<<"$output"; then
    fail "$what: message lacks '$fragment': $output"
  fi
}

# expect_usage_error "what" "message fragment" command...: a wrong command line exits 2 and says
# what is wrong with it.
expect_usage_error() {
  local what=$1 fragment=$2
  shift 2
  local output status
  output=$("$@" 2>&1)
  status=$?
  if [ "$status" -ne 2 ]; then
    fail "$what: exit status $status, expected 2"
  elif ! grep -qF -- "$fragment" <<<"$output"; then
    fail "$what: message lacks '$fragment': $output"
  fi
}

finish() {
  if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
  fi
  echo "all checks passed"
}
