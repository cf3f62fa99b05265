#!/usr/bin/env python3
"""`McpTools` against a FastMCP 4 server with `fastmcp-tasks` (SEP-2663 tasks on Docket's
in-memory backend): `examples/mcp_probe` calls three `@mcp.tool(task=True)` tools over stdio —
a slow one that reports progress (followed to its result), one that asks for a name (the
question crosses as a §10 suspension, answered with `tasks/update`), and one that never ends,
called with a 1.5 s deadline (the call times out and `tasks/cancel` stops the task: the tool
sees its cancellation). Each tool records that it ran as a background task.

    pip install "fastmcp-tasks==4.1.4"          # brings fastmcp-slim 4.1.4
    cargo build --example mcp_probe --features mcp-client
    python3 scripts/fastmcp-tasks-check.py [path/to/mcp_probe]

Not run by CI: it needs Python and the packages. Exits 1 if any check fails.
Last run 2026-12-05 with fastmcp-tasks 4.1.4: ok, 4/4 calls as expected, the tools ran as 5
background tasks and `forever` saw its cancellation, 0 failures.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROBE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target/debug/examples/mcp_probe")

SERVER = '''
import asyncio
import os

import mcp_types
from fastmcp import Context, FastMCP
from fastmcp_tasks import TasksExtension
from fastmcp_tasks.context import get_task_context

MARKS = os.environ["MARKS"]
mcp = FastMCP("fastmcp-tasks")
mcp.add_extension(TasksExtension(url="memory://"))


def mark(text):
    with open(MARKS, "a") as marks:
        marks.write(text + "\\n")


@mcp.tool(task=True)
async def slow_count(n: int, ctx: Context) -> str:
    """Counts to n, reporting progress."""
    mark(f"slow_count as task: {get_task_context() is not None}")
    for i in range(1, n + 1):
        await asyncio.sleep(0.2)
        await ctx.report_progress(i, n, f"step {i}")
    return f"counted to {n}"


@mcp.tool(task=True)
async def ask_name(ctx: Context):
    """Asks for a name (fastmcp-tasks asks by returning the question: the guard pattern)."""
    mark(f"ask_name as task: {get_task_context() is not None}")
    answer = (ctx.input_responses or {}).get("name")
    if answer is None:
        question = mcp_types.ElicitRequest(
            params=mcp_types.ElicitRequestFormParams(
                message="What is your name?",
                requested_schema={
                    "type": "object",
                    "properties": {"name": {"type": "string"}},
                    "required": ["name"],
                },
            )
        )
        return mcp_types.InputRequiredResult(input_requests={"name": question})
    answer = answer if isinstance(answer, dict) else answer.model_dump()
    if answer.get("action") == "accept":
        return f"hello {answer['content']['name']}"
    return f"no name ({answer.get('action')})"


@mcp.tool(task=True)
async def forever() -> str:
    """Never ends."""
    mark(f"forever as task: {get_task_context() is not None}")
    try:
        await asyncio.sleep(3600)
    except asyncio.CancelledError:
        mark("forever cancelled")
        raise
    return "late"


if __name__ == "__main__":
    mcp.run()
'''

CALLS = [
    {"server": "fm", "tool": "slow_count", "args": {"n": 3}},
    {"server": "fm", "tool": "ask_name", "args": {}, "answer": {"ok": True, "data": {"name": "Ada"}}},
    {"server": "fm", "tool": "forever", "args": {}, "timeout_ms": 1500},
    # The `tasks/cancel` a deadline sends goes out beside the next call (the probe exits
    # after its last one).
    {"server": "fm", "tool": "slow_count", "args": {"n": 1}},
]

EXPECTED = {
    "fm.slow_count": '"output":"counted to 3","isError":false',
    "fm.ask_name": '"output":"hello Ada","isError":false',
    "fm.forever": '"output":"tool `forever` timed out after 1500ms","isError":true',
}


def main():
    failures = []
    with tempfile.TemporaryDirectory() as scratch:
        server = os.path.join(scratch, "server.py")
        marks = os.path.join(scratch, "marks.txt")
        with open(server, "w") as out:
            out.write(SERVER)
        config = os.path.join(scratch, "mcp.json")
        with open(config, "w") as out:
            json.dump({"mcpServers": {"fm": {
                "command": sys.executable, "args": [server], "env": {"MARKS": marks},
            }}}, out)
        calls = os.path.join(scratch, "calls.json")
        with open(calls, "w") as out:
            json.dump(CALLS, out)
        probe = subprocess.run([PROBE, config, calls], capture_output=True, text=True, timeout=120)
        print(probe.stdout)
        for line, wanted in EXPECTED.items():
            shown = [l for l in probe.stdout.splitlines() if l.strip().startswith(line + " ")]
            if not shown or wanted not in shown[0]:
                failures.append(f"{line}: expected {wanted}, got {shown}")
        if "~ suspended (input): What is your name?" not in probe.stdout:
            failures.append("ask_name's question did not cross as a suspension")
        # The cancellation reaches the worker after the call returned.
        for _ in range(50):
            text = open(marks).read() if os.path.exists(marks) else ""
            if "forever cancelled" in text:
                break
            time.sleep(0.1)
        print(text)
        for wanted in ["slow_count as task: True", "ask_name as task: True",
                       "forever as task: True", "forever cancelled"]:
            if wanted not in text:
                failures.append(f"the server did not record {wanted!r}")
    for failure in failures:
        print("FAIL", failure)
    print("ok" if not failures else f"{len(failures)} failure(s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
