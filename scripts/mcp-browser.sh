#!/usr/bin/env bash
# Proof that a browser can use the MCP HTTP server through CORS: serves a small page from an
# allowed loopback origin (http://127.0.0.1:PAGE_PORT, admitted by the loopback default),
# and drives headless Chromium through it. The page, with `fetch` only, initializes a session
# with a bearer token (so every call is preflighted), reads `Mcp-Session-Id` from the answer
# (readable only because it is exposed), lists the tools, calls `add`, and posts what it saw
# back to the page server. Then the same from a foreign origin (http://localhost.test,
# resolved to 127.0.0.1 by Chromium's host rules) must fail.
#
#   apt-get install -y chromium     # Debian's package
#   scripts/mcp-browser.sh          # exits 0 and prints "browser proof: ok" on success
#
# Not run in CI (it needs a browser); the CORS headers themselves are tested in Rust
# (toolnexus/src/mcp/server/http/service.rs, toolnexus/tests/mcp/http/mcp_hostile.rs).
set -euo pipefail
cd "$(dirname "$0")/.."

CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser)}
MCP_PORT=${MCP_PORT:-18765}
PAGE_PORT=${PAGE_PORT:-18766}
TOKEN=browser-proof-token
WORK=$(mktemp -d)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

cargo build --quiet --example mcp_server --features mcp-http
MCP_BEARER_TOKEN=$TOKEN target/debug/examples/mcp_server --http "127.0.0.1:$MCP_PORT" 2>"$WORK/server.log" &
PIDS+=($!)

cat >"$WORK/index.html" <<HTML
<!doctype html>
<meta charset="utf-8">
<title>MCP from a browser</title>
<script>
const url = "http://127.0.0.1:$MCP_PORT/mcp";
let session = null;
async function rpc(message) {
  const headers = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "Authorization": "Bearer $TOKEN",
  };
  if (session) { headers["Mcp-Session-Id"] = session; headers["Mcp-Protocol-Version"] = "2025-11-25"; }
  const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(message) });
  session = session || response.headers.get("Mcp-Session-Id");
  const text = await response.text();
  const data = text.split("\n").filter(l => l.startsWith("data:")).map(l => l.slice(5).trim()).filter(l => l);
  return { status: response.status, message: data.length ? JSON.parse(data[data.length - 1]) : (text ? JSON.parse(text) : null) };
}
async function run() {
  const report = {};
  try {
    const init = await rpc({ jsonrpc: "2.0", id: 1, method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "browser", version: "0" } } });
    report.initialize = init.status;
    report.session = session !== null;
    report.initialized = (await rpc({ jsonrpc: "2.0", method: "notifications/initialized" })).status;
    const list = await rpc({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    report.tools = list.message.result.tools.map(t => t.name);
    const call = await rpc({ jsonrpc: "2.0", id: 3, method: "tools/call",
      params: { name: "add", arguments: { a: 2, b: 40 } } });
    report.add = call.message.result.content[0].text;
  } catch (error) {
    report.error = String(error);
  }
  await fetch("/result", { method: "POST", body: JSON.stringify(report) });
}
run();
</script>
HTML

cat >"$WORK/serve.py" <<'PY'
import http.server, sys, os
work = sys.argv[2]
class Page(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=work, **kwargs)
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        name = "result-" + self.headers["Host"].split(":")[0] + ".json"
        with open(os.path.join(work, name), "wb") as out:
            out.write(body)
        self.send_response(204)
        self.end_headers()
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Page).serve_forever()
PY
python3 "$WORK/serve.py" "$PAGE_PORT" "$WORK" &
PIDS+=($!)

# Wait (boundedly) for both servers.
for _ in $(seq 100); do
    if curl -s -o /dev/null "http://127.0.0.1:$PAGE_PORT/" && curl -s -o /dev/null "http://127.0.0.1:$MCP_PORT/"; then break; fi
    sleep 0.1
done

# Loads `origin`'s page in headless Chromium; waits (at most 60 s) for its report.
visit() {
    local host=$1 result="$WORK/result-$1.json" profile
    profile=$(mktemp -d)
    "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
        --no-first-run --user-data-dir="$profile" \
        --host-resolver-rules="MAP localhost.test 127.0.0.1" \
        "http://$host:$PAGE_PORT/" >"$WORK/chromium-$host.log" 2>&1 &
    local chromium=$!
    PIDS+=("$chromium")
    for _ in $(seq 600); do
        [ -s "$result" ] && break
        sleep 0.1
    done
    kill "$chromium" 2>/dev/null || true
    wait "$chromium" 2>/dev/null || true
    rm -rf "$profile"
    cat "$result" 2>/dev/null || echo '{"error": "no report"}'
}

allowed=$(visit 127.0.0.1)
echo "allowed origin http://127.0.0.1:$PAGE_PORT: $allowed"
python3 - "$allowed" <<'PY'
import json, sys
report = json.loads(sys.argv[1])
assert report.get("initialize") == 200, report
assert report.get("session") is True, report          # Mcp-Session-Id is exposed
assert report.get("initialized") == 202, report
assert "add" in report.get("tools", []), report
assert report.get("add") in ("42", "42.0"), report
PY

foreign=$(visit localhost.test)
echo "foreign origin http://localhost.test:$PAGE_PORT: $foreign"
python3 - "$foreign" <<'PY'
import json, sys
report = json.loads(sys.argv[1])
assert "error" in report and "initialize" not in report, report   # fetch refused: no CORS
PY
echo "browser proof: ok"
