#!/usr/bin/env bash
# The official MCP conformance suite (npm @modelcontextprotocol/conformance) against this
# crate: every server scenario against examples/conformance_server.rs, with sessions and
# stateless, at every revision the scenario is tagged with, printing per-scenario counts of
# checks (passed/all, then failures and warnings); then every non-auth client scenario against
# examples/conformance_client (McpTools). Not part of CI: it installs
# Node 22 and the suite (npm) in a scratch directory and takes a few minutes.
#
#   scripts/mcp-conformance.sh [SCENARIO...]   # default: every scenario the suite lists
#
# Scenarios for what the server does not offer (resources, prompts, completion, logging,
# sampling, skills) are run too and marked "(not offered)"; the tasks extension's scenarios
# are in scope. Exit status 0: the summary is the result. Set MCP_CONFORMANCE_DIR to keep the install elsewhere, MCP_CONFORMANCE_VERSION
# for another suite release.
#
# Last run (2026-12-04, 0.2.0-alpha.12): in-scope server checks 425/459 (the ten tasks
# scenarios 42/44 in each mode), non-auth client checks 79/79. What still fails, and why:
# - tasks-lifecycle, -status-failed: a tool that panics in a task ends `completed` with
#   `isError` (SPEC §8: a panic is an isError result); the suite wants `failed`.
# - tasks-mrtr-input, -partial-fulfillment: a suspension asks one question (SPEC §8C); the
#   suite wants two at once, answered one at a time.
# - server-stateless: `test_missing_capability` (needs sampling) and `test_logging_tool`
#   (logging) are diagnostics for features the server does not offer.
# - caching: tools/list carries the hints; prompts/resources lists are not offered.
# - input-required-result-tampered-state: SPEC §8C answers a tampered requestState with an
#   isError result (the suite wants a JSON-RPC error); -multi-round: the §10 loop rule ends
#   a second suspension as `unresolved`; -ignore-extra-params: answers without the sealed
#   requestState are not taken (the tool asks again); -multiple-input-requests and
#   -capability-check need sampling and roots inputs.
# - stateless, 2025-*: tools-call-elicitation and the elicitation-sep* scenarios: a stateless
#   2025-* request carries no client capabilities, so the server cannot ask (isError saying so).
# - server-sse-polling, server-sse-multiple-streams (stateless): the scenarios need a session;
#   with sessions the conformance server closes a call's stream after 50 ms
#   (`HttpOptions::poll_after`) and the GET with Last-Event-ID gets the answer: 3/3.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${MCP_CONFORMANCE_DIR:-${TMPDIR:-/tmp}/toolnexus-mcp-conformance}"
version="${MCP_CONFORMANCE_VERSION:-0.2.0-alpha.12}"
port="${MCP_CONFORMANCE_PORT:-18931}"

mkdir -p "$work"
cd "$work"
[ -f package.json ] || npm init -y > /dev/null
if [ ! -x node_modules/.bin/node ] || [ ! -d node_modules/@modelcontextprotocol/conformance ] ||
  ! grep -q "\"version\": \"$version\"" node_modules/@modelcontextprotocol/conformance/package.json; then
  npm install --silent "node@22" "@modelcontextprotocol/conformance@$version"
fi
node="$work/node_modules/.bin/node"
suite=("$node" "$work/node_modules/@modelcontextprotocol/conformance/dist/index.js")

cd "$repo"
target="${CARGO_TARGET_DIR:-$repo/target}"
cargo build --quiet --example conformance_server --features mcp,mcp-http
cargo build --quiet --example conformance_client --features oauth-jwt
results="$(mktemp -d)"
# Copies, run from here: a build in a shared target directory may replace the originals
# while the scenarios run.
cp "$target/debug/examples/conformance_server" "$target/debug/examples/conformance_client" "$results/"
server_bin="$results/conformance_server"
client_bin="$results/conformance_client"

# "  - NAME [TAG,TAG]" lines of a section of `conformance list`.
scenarios_of() {
  "${suite[@]}" list | awk -v section="$1" '
    /^[A-Za-z].*scenarios/ { on = index($0, section) == 1; next }
    on && /^  - / { sub(/^  - /, ""); print }'
}

out_of_scope() {
  case "$1" in
    resources-* | prompts-* | completion-* | logging-* | tools-call-with-logging | \
      tools-call-sampling | input-required-result-basic-sampling | \
      input-required-result-basic-list-roots | input-required-result-non-tool-request | \
      sep-2164-* | sep-2640-*) echo " (not offered)" ;;
    *) echo "" ;;
  esac
}

# Counts of one run's checks.json: "passed/all" and the failures and warnings.
counts() {
  "$node" -e '
    const checks = require(process.argv[1]);
    const by = (s) => checks.filter((c) => c.status === s).length;
    const judged = checks.filter((c) => c.status !== "SKIPPED" && c.status !== "INFO");
    let line = `${by("SUCCESS")}/${judged.length}`;
    if (by("FAILURE")) line += `, ${by("FAILURE")} failed`;
    if (by("WARNING")) line += `, ${by("WARNING")} warnings`;
    if (by("SKIPPED")) line += `, ${by("SKIPPED")} skipped`;
    console.log(line);
    for (const c of checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING"))
      console.error(`      ${c.status} ${c.id}: ${(c.errorMessage || c.description || "").slice(0, 300)}`);
  ' "$1"
}

wanted=("$@")
is_wanted() {
  [ ${#wanted[@]} -eq 0 ] && return 0
  local name
  for name in "${wanted[@]}"; do [ "$name" = "$1" ] && return 0; done
  return 1
}

server_pid=""
stop_server() { [ -n "$server_pid" ] && kill "$server_pid" 2> /dev/null && wait "$server_pid" 2> /dev/null; server_pid=""; }
trap stop_server EXIT

total_pass=0
total_all=0
for mode in session stateless; do
  flags=()
  [ "$mode" = stateless ] && flags=(--stateless)
  "$server_bin" --http "127.0.0.1:$port" "${flags[@]}" 2> "$results/server-$mode.log" &
  server_pid=$!
  for _ in $(seq 50); do
    (echo > "/dev/tcp/127.0.0.1/$port") 2> /dev/null && break
    sleep 0.1
  done
  echo "== server scenarios, $mode =="
  while read -r name tags; do
    is_wanted "$name" || continue
    tags="${tags#[}"
    tags="${tags%]}"
    for tag in ${tags//,/ }; do
      dir="$results/$mode/$name/$tag"
      mkdir -p "$dir"
      spec=(--spec-version "$tag")
      [ "$tag" = extension ] && spec=(--suite all)
      "${suite[@]}" server --url "http://127.0.0.1:$port/mcp" --scenario "$name" "${spec[@]}" \
        -o "$dir" > "$dir/log" 2>&1 || true
      checks="$(find "$dir" -name checks.json | head -1)"
      if [ -z "$checks" ]; then
        printf '  %-48s %-10s no result: %s\n' "$name" "$tag" "$(tail -1 "$dir/log")"
        continue
      fi
      line="$(counts "$checks" 2> "$dir/failures")"
      printf '  %-48s %-10s %s%s\n' "$name" "$tag" "$line" "$(out_of_scope "$name")"
      if [ -z "$(out_of_scope "$name")" ]; then
        sed 's/^/  /' "$dir/failures"
        total_pass=$((total_pass + ${line%%/*}))
        rest="${line#*/}"
        total_all=$((total_all + ${rest%%,*}))
      fi
    done
  done < <(scenarios_of "Server scenarios")
  stop_server
done
echo "in-scope server checks passed: $total_pass/$total_all"

# The client scenarios, each against the suite's own scenario server; `auth/*` belong to the
# OAuth client and extension scenarios (skills) to what the client does not offer.
client_pass=0
client_all=0
echo "== client scenarios (examples/conformance_client) =="
while read -r name tags; do
  is_wanted "$name" || continue
  case "$name" in auth/* | sep-2640-*) continue ;; esac
  tags="${tags#[}"
  tags="${tags%]}"
  for tag in ${tags//,/ }; do
    dir="$results/client/$name/$tag"
    mkdir -p "$dir"
    "${suite[@]}" client --command "$client_bin" --scenario "$name" --spec-version "$tag" \
      -o "$dir" > "$dir/log" 2>&1 || true
    checks="$(find "$dir" -name checks.json | head -1)"
    if [ -z "$checks" ]; then
      printf '  %-48s %-10s no result: %s\n' "$name" "$tag" "$(tail -1 "$dir/log")"
      continue
    fi
    line="$(counts "$checks" 2> "$dir/failures")"
    printf '  %-48s %-10s %s\n' "$name" "$tag" "$line"
    sed 's/^/  /' "$dir/failures"
    client_pass=$((client_pass + ${line%%/*}))
    rest="${line#*/}"
    client_all=$((client_all + ${rest%%,*}))
  done
done < <(scenarios_of "Client scenarios")
echo "non-auth client checks passed: $client_pass/$client_all"
