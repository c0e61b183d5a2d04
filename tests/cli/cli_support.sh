# Sourced by the command-line tests: $wgpt is the tool, $root the repository.
set -uo pipefail
wgpt=$1
root=$2
failures=0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect_status STATUS "what" "message fragment" command...: exits with STATUS (not a crash) and
# says the fragment.
expect_status() {
  local expected=$1 what=$2 fragment=$3
  shift 3
  local output status
  output=$("$@" 2>&1)
  status=$?
  if [ "$status" -ne "$expected" ]; then
    fail "$what: exit status $status, expected $expected"
  elif ! grep -qF -- "$fragment" <<<"$output"; then
    fail "$what: message lacks '$fragment': $output"
  fi
}
# A command that fails exits 1; a wrong command line exits 2.
expect_error() { expect_status 1 "$@"; }
expect_usage_error() { expect_status 2 "$@"; }

finish() {
  if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
  fi
  echo "all checks passed"
}
