#!/usr/bin/env bash
# The official MCP conformance suite's `auth/*` client scenarios against
# examples/conformance_client (its `auth.rs`): every scenario the suite lists, with those it
# does not pass listed in scripts/mcp-conformance-auth-expected-failures.yaml (the suite fails
# the run when a listed one passes or an unlisted one fails). Last run (2026-12-04, suite
# 0.2.0-alpha.12): 33 of 33 pass, 469/469 checks, none listed. Not part of CI: it installs
# the suite and Node 22 from npm into a scratch directory under /tmp.
#
#   scripts/mcp-conformance-auth.sh [SCENARIO…]   # default: every auth/* scenario
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${MCP_CONFORMANCE_WORK:-/tmp/toolnexus-mcp-conformance}"
suite_version="0.2.0-alpha.12"

auth_scenarios() {
  local node="$work/node_modules/node/bin/node"
  local suite="$work/node_modules/@modelcontextprotocol/conformance/dist/index.js"
  local client="${CARGO_TARGET_DIR:-$repo/target}/debug/examples/conformance_client"
  local scenarios=("$@")
  if [ ${#scenarios[@]} -eq 0 ]; then
    mapfile -t scenarios < <("$node" "$suite" list | grep -o 'auth/[a-z0-9-]*' | sort -u)
  fi
  local passed=0 failed=0
  for scenario in "${scenarios[@]}"; do
    local out
    out="$(PATH="$(dirname "$node"):$PATH" "$node" "$suite" client --command "$client" \
      --scenario "$scenario" 2>&1 || true)"
    local checks
    checks="$(grep -E '^Passed:' <<< "$out" || echo 'no result')"
    if grep -q 'OVERALL: PASSED' <<< "$out"; then
      passed=$((passed + 1)); echo "pass  $scenario  $checks"
    else
      failed=$((failed + 1)); echo "FAIL  $scenario  $checks"
    fi
  done
  echo "auth/* scenarios: $passed passed, $failed failed of ${#scenarios[@]}"
  # The suite's own verdict on the whole set, against the expected failures.
  PATH="$(dirname "$node"):$PATH" "$node" "$suite" client --command "$client" --suite auth \
    --expected-failures "$repo/scripts/mcp-conformance-auth-expected-failures.yaml" > "$work/suite.log" 2>&1 &&
    echo "the suite agrees with the expected failures" ||
    { tail -20 "$work/suite.log"; return 1; }
}

mkdir -p "$work"
( cd "$work"
  [ -f package.json ] || npm init -y > /dev/null
  [ -d "node_modules/@modelcontextprotocol/conformance" ] ||
    npm install --silent "@modelcontextprotocol/conformance@$suite_version" node@22 )
( cd "$repo" && cargo build --example conformance_client --features oauth-jwt )
auth_scenarios "$@"
