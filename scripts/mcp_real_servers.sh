#!/usr/bin/env bash
# McpTools against MCP servers nobody here wrote: the official reference servers
# @modelcontextprotocol/server-everything and server-filesystem (npm), and a FastMCP server
# (the `mcp` package 1.x, PyPI; 2.x renamed FastMCP to MCPServer). Each server's tools go
# through every profile and `check`, and a script of calls runs (text, images, structured
# content, progress, elicitation, a refused argument). Not part of CI: it installs packages
# (npm, PyPI) and takes a minute. Last run 2026-12-03: every call as expected, exit 0.
#
#   scripts/mcp_real_servers.sh [--dump DIR]   # DIR: write each server's tools/list there
#
# Needs node/npx and python3. Runs in a scratch directory under /tmp.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${MCP_REAL_WORK:-/tmp/toolnexus-mcp-real}"
mkdir -p "$work/data"
echo "hello from a file" > "$work/data/hello.txt"

cd "$work"
[ -f package.json ] || npm init -y > /dev/null
[ -d node_modules/@modelcontextprotocol/server-everything ] ||
  npm install --silent @modelcontextprotocol/server-everything @modelcontextprotocol/server-filesystem
[ -x venv/bin/python ] || python3 -m venv venv
venv/bin/python -c 'import mcp.server.fastmcp' 2> /dev/null || venv/bin/pip install --quiet 'mcp<2'

cat > mcp.json <<JSON
{"mcpServers": {
  "everything": {"command": "node", "args": ["$work/node_modules/@modelcontextprotocol/server-everything/dist/index.js", "stdio"]},
  "filesystem": {"type": "stdio", "command": "node", "args": ["$work/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", "$work/data"]},
  "fastmcp": {"command": "$work/venv/bin/python", "args": ["$repo/scripts/mcp_real/fastmcp_server.py"]}
}}
JSON

cat > calls.json <<JSON
[
  {"server": "everything", "tool": "echo", "args": {"message": "hi"}},
  {"server": "everything", "tool": "get-sum", "args": {"a": 2, "b": 40}},
  {"server": "everything", "tool": "get-sum", "args": {"a": "two", "b": 40}},
  {"server": "everything", "tool": "get-tiny-image", "args": {}},
  {"server": "everything", "tool": "get-structured-content", "args": {"location": "New York"}},
  {"server": "everything", "tool": "get-resource-links", "args": {"count": 2}},
  {"server": "everything", "tool": "get-resource-reference", "args": {"resourceType": "Text", "resourceId": 1}},
  {"server": "everything", "tool": "trigger-long-running-operation", "args": {"duration": 2, "steps": 4}},
  {"server": "everything", "tool": "trigger-elicitation-request", "args": {}},
  {"server": "filesystem", "tool": "list_allowed_directories", "args": {}},
  {"server": "filesystem", "tool": "read_text_file", "args": {"path": "$work/data/hello.txt"}},
  {"server": "filesystem", "tool": "read_text_file", "args": {"path": 5}},
  {"server": "filesystem", "tool": "read_text_file", "args": {"path": "/etc/passwd"}},
  {"server": "fastmcp", "tool": "forecast", "args": {"city": "Oslo", "days": 2}},
  {"server": "fastmcp", "tool": "forecast", "args": {"city": "Oslo", "days": 9}},
  {"server": "fastmcp", "tool": "order", "args": {"items": [{"apple": 2}], "priority": "high"}},
  {"server": "fastmcp", "tool": "order", "args": {"items": [{"apple": 2}], "priority": "urgent"}},
  {"server": "fastmcp", "tool": "price", "args": {"amount": 19.99}},
  {"server": "fastmcp", "tool": "price", "args": {"amount": 5}},
  {"server": "fastmcp", "tool": "price", "args": {"amount": 19.999}},
  {"server": "fastmcp", "tool": "find_sku", "args": {"sku": "SKU-12"}},
  {"server": "fastmcp", "tool": "find_sku", "args": {"sku": "12"}},
  {"server": "fastmcp", "tool": "pixel", "args": {}},
  {"server": "fastmcp", "tool": "countdown", "args": {"n": 3}},
  {"server": "fastmcp", "tool": "wipe", "args": {"table": "users"}, "answer": {"ok": true, "data": {"confirm": true}}},
  {"server": "fastmcp", "tool": "wipe", "args": {"table": "users"}, "answer": {"ok": false, "reason": "declined"}}
]
JSON

cd "$repo"
cargo build --quiet --example mcp_probe --features mcp-client
target/debug/examples/mcp_probe "$work/mcp.json" "$work/calls.json" "$@"
