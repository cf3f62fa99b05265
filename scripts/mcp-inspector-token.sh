#!/usr/bin/env bash
# What the official MCP Inspector (CLI 2.12, Node 22) tells a person who forgot the static
# bearer token of `examples/mcp_server`: the server's 401 says `error="invalid_token"`, and when
# the Inspector still looks for an OAuth sign-in, the paths it probes answer that there is none
# and which header to send. Prints the Inspector's three answers (interactive, with
# --stored-auth-only, with the token) and exits 0 when each says what it should.
#
#   scripts/mcp-inspector-token.sh      # needs npm (the npm registry) and `script` (util-linux)
#
# Not run in CI (it needs npm); the headers and bodies are tested in Rust
# (toolnexus/tests/mcp/http/mcp_http.rs, mcp_auth.rs).
set -euo pipefail
cd "$(dirname "$0")/.."

PORT=${MCP_PORT:-18799}
TOKEN=inspector-check-token
WORK=$(mktemp -d)
SERVER=
cleanup() {
    [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

(
    cd "$WORK"
    npm init -y >/dev/null
    npm i --silent node@22 @modelcontextprotocol/inspector@2.12.0 >/dev/null 2>&1
    # Both run install scripts: Node's fetches its binary, the Inspector builds its clients.
    npm install-scripts approve node @modelcontextprotocol/inspector >/dev/null 2>&1 || true
    npm rebuild node @modelcontextprotocol/inspector >/dev/null 2>&1
)
export PATH="$WORK/node_modules/.bin:$PATH"
export MCP_INSPECTOR_SECRET_STORE=memory

cargo build --quiet --example mcp_server --features mcp-http
MCP_BEARER_TOKEN=$TOKEN target/debug/examples/mcp_server --http "127.0.0.1:$PORT" &
SERVER=$!
sleep 1
URL="http://127.0.0.1:$PORT/mcp"

inspect() { timeout 60 mcp-inspector --cli "$URL" --transport http "$@" --method tools/list </dev/null 2>&1 || true; }
# A person at a terminal: the Inspector starts its OAuth flow, which our probes' answers stop.
interactive=$(timeout 60 script -qc "mcp-inspector --cli $URL --transport http --method tools/list" /dev/null </dev/null 2>&1 || true)
stored_only=$(inspect --stored-auth-only)
with_token=$(inspect --header "Authorization: Bearer $TOKEN")

echo "interactive, no token:   $(tail -1 <<<"$interactive")"
echo "--stored-auth-only:      $(tail -1 <<<"$stored_only")"
echo "with the token:          $(grep -o "\"name\": \"add\"" <<<"$with_token" || echo "no add tool")"
grep -q 'offers no OAuth sign-in; send its bearer token as Authorization: Bearer <token>' <<<"$interactive"
grep -q 'no bearer token was sent; send Authorization: Bearer <token>' <<<"$stored_only"
grep -q '"name": "add"' <<<"$with_token"
echo "inspector token check: ok"
