#!/usr/bin/env python3
"""Assembles toolnexus/tests/fixtures/tool_catalog.json: the tool lists of real MCP servers, the
catalog the local tool search's recall is measured on (issue 42, SPEC §15).

Each server is started over stdio and asked `tools/list` (all pages); GitHub's MCP server is
read from the tool snapshots its repository commits (`pkg/github/__toolsnaps__/*.snap`, here
at commit 64a49f34d076b6f5917dae1424521d43c7bcae84), so no token is needed. Usage:

    python3 scripts/tool-catalog.py PATH/TO/github-mcp-server

Needs node (npx) and pip-installed `mcp-server-git`, `mcp-server-time`, `mcp-server-fetch`.
"""

import json
import pathlib
import subprocess
import sys
import tempfile

OUT = pathlib.Path(__file__).resolve().parent.parent / "toolnexus/tests/fixtures/tool_catalog.json"

SCRATCH = tempfile.mkdtemp()

# server name -> command line; versions pinned so the fixture can be rebuilt as it is.
SERVERS = {
    "everything": ["npx", "-y", "@modelcontextprotocol/server-everything@2026.8.31"],
    "filesystem": ["npx", "-y", "@modelcontextprotocol/server-filesystem@2026.8.31", SCRATCH],
    "memory": ["npx", "-y", "@modelcontextprotocol/server-memory@2026.8.31"],
    "sequential-thinking": ["npx", "-y", "@modelcontextprotocol/server-sequential-thinking@2026.8.31"],
    "playwright": ["npx", "-y", "@playwright/mcp@0.0.86"],
    "notion": ["npx", "-y", "@notionhq/notion-mcp-server@2.5.2"],
    "git": ["python3", "-m", "mcp_server_git"],
    "time": ["python3", "-m", "mcp_server_time"],
    "fetch": ["python3", "-m", "mcp_server_fetch"],
}


def rpc(proc, message):
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()
    if "id" not in message:
        return None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"server exited: {proc.args}")
        try:
            reply = json.loads(line)
        except json.JSONDecodeError:
            continue  # a server printing to stdout before speaking JSON-RPC
        if reply.get("id") == message["id"]:
            if "error" in reply:
                raise RuntimeError(reply["error"])
            return reply["result"]


def list_tools(command):
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "toolnexus-catalog", "version": "1"}}})
        rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools, cursor, at = [], None, 2
        while True:
            params = {"cursor": cursor} if cursor else {}
            page = rpc(proc, {"jsonrpc": "2.0", "id": at, "method": "tools/list", "params": params})
            tools += page["tools"]
            cursor, at = page.get("nextCursor"), at + 1
            if not cursor:
                return tools
    finally:
        proc.kill()


def keep(tool):
    """What the search reads, as a server sends it."""
    entry = {"name": tool["name"]}
    title = tool.get("title") or (tool.get("annotations") or {}).get("title")
    if title:
        entry["title"] = title
    entry["description"] = tool.get("description", "")
    entry["inputSchema"] = tool.get("inputSchema", {"type": "object"})
    return entry


def main() -> int:
    github = pathlib.Path(sys.argv[1]) / "pkg/github/__toolsnaps__"
    servers = {"github": [keep(json.loads(snap.read_text())) for snap in sorted(github.glob("*.snap"))]}
    for name, command in SERVERS.items():
        try:
            servers[name] = [keep(tool) for tool in list_tools(command)]
        except Exception as error:  # reported, and the fixture says which servers it has
            print(f"{name}: {error}", file=sys.stderr)
    total = sum(len(tools) for tools in servers.values())
    OUT.write_text(json.dumps({"servers": servers}, indent=1, ensure_ascii=False) + "\n")
    print(f"{total} tools from {len(servers)} servers: " + ", ".join(f"{k} {len(v)}" for k, v in servers.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
