#!/usr/bin/env bash
# examples/mcp_agent with the official filesystem server (@modelcontextprotocol/server-filesystem,
# npm) beside examples/mcp_server, both deferred (SPEC §15): the scripted model finds the
# directory listing by search, the run loads it, and it lists a scratch directory. Checks the
# lines that show it and exits non-zero when one is missing. Not part of CI: it installs the npm
# package (needs node and the npm registry). Last run 2026-12-05: every line seen, exit 0.
#
#   scripts/mcp-agent-filesystem.sh
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${MCP_AGENT_WORK:-/tmp/toolnexus-mcp-agent-fs}"
mkdir -p "$work/data"
printf 'milk, eggs\n' > "$work/data/shopping.txt"
printf '# plan\n' > "$work/data/plan.md"

# With every feature, as `cargo test --workspace --all-features` builds them, so that the
# test suite's example binaries are the same ones afterwards.
(cd "$repo" && cargo build --quiet --all-features --example mcp_server --example mcp_agent)

cd "$work"
[ -f package.json ] || npm init -y > /dev/null
[ -d node_modules/@modelcontextprotocol/server-filesystem ] ||
  npm install --silent @modelcontextprotocol/server-filesystem

# From $work, `npx` finds the server installed here instead of downloading it.
out="$("$repo/target/debug/examples/mcp_agent" --filesystem "$work/data" 2> "$work/stderr.log")"
echo "$out"

missing=0
expect() {
  if ! grep -qxF -- "$1" <<< "$out"; then
    echo "MISSING: $1" >&2
    missing=1
  fi
}
expect_matching() {
  if ! grep -qE -- "$1" <<< "$out"; then
    echo "MISSING (pattern): $1" >&2
    missing=1
  fi
}
expect_matching '^filesystem: [0-9]+ tools$'
# Deferred: the first request carries the local tool and the search only.
expect_matching '^turn 0: sends 2 of [0-9]+ tools: word_count, search_tools$'
expect_matching '^  > search_tools \{"query":"list the files in a directory","limit":1\} => filesystem_list_directory: '
expect_matching '^turn 3: sends 5 of [0-9]+ tools: word_count, notes_get_weather, notes_delete_note, filesystem_list_directory, search_tools$'
# The listing's order is the directory's own: each file on a line of its own, the first after `=>`.
expect_matching "^  > filesystem_list_directory \\{\"path\":\"$work/data\"\\} => \\[FILE\\] "
expect_matching '(^|=> )\[FILE\] plan\.md$'
expect_matching '(^|=> )\[FILE\] shopping\.txt$'
expect "  > notes_delete_note {\"id\":3} => deleted note 3"
if [ "$missing" -ne 0 ]; then
  echo "stderr of the run: $work/stderr.log" >&2
  exit 1
fi
echo "ok: the filesystem server's tools were deferred, found by search, loaded and called"
