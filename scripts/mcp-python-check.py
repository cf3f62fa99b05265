#!/usr/bin/env python3
"""Drives `examples/mcp_server` with the official Python MCP SDK (`pip install "mcp>=2"`):
every tool, over stdio and streamable HTTP (with sessions and stateless), in the SDK's default
mode (2026-07-28: `server/discover`, MRTR input requests) and in `mode="legacy"` (the
`initialize` handshake; elicitation/create). The approval and the input form are answered by
the elicitation callback; progress is counted by a progress callback. On 2026-07-28 the
`delete_note` suspension is also retried by hand with a tampered requestState, a malformed
answer (content not an object) and a used state: each must be a JSON-RPC -32602 error.

    cargo build --example mcp_server --features mcp-http
    python3 scripts/mcp-python-check.py [path/to/mcp_server]

Not run by CI: it needs Python, the SDK and free loopback ports. Exits 1 if any check fails.
Last run 2026-12-05 with mcp 2.3.0: all 6 rows ok (3 transports x 2 modes), 0 failures.
"""

import asyncio
import os
import socket
import subprocess
import sys
import time
import warnings

from mcp import StdioServerParameters, types
from mcp.client import Client

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target/debug/examples/mcp_server")

asked = []


async def elicit(context, params):
    """Approves everything; picks staging when asked for an environment."""
    asked.append(params.mode if hasattr(params, "mode") else "form")
    schema = getattr(params, "requested_schema", None) or {}
    content = {"env": "staging"} if "env" in (schema.get("properties") or {}) else {}
    return types.ElicitResult(action="accept", content=content)


async def check(server, mode):
    """Calls every tool; returns the failures."""
    failures = []
    progress = []

    async def on_progress(value, total, message):
        progress.append(value)

    asked.clear()
    async with Client(server, mode=mode, elicitation_callback=elicit) as client:
        tools = await client.list_tools()
        names = sorted(tool.name for tool in tools.tools)
        expected_names = sorted(["add", "get_weather", "screenshot", "delete_note",
                                 "pick_environment", "count_to", "note_stats", "whoami",
                                 "long_count", "publish_report"])
        if names != expected_names:
            failures.append(f"tools/list: {names}")
        calls = [
            ("add", {"a": 2, "b": 40}, "42"),
            ("get_weather", {"city": "Paris"}, "Paris: 18°C, dry"),
            ("screenshot", {}, None),
            ("delete_note", {"id": 1}, "deleted note 1"),
            ("pick_environment", {}, "deploying to staging"),
            ("count_to", {"n": 3}, "counted to 3"),
            ("note_stats", {}, '{"notes":3,"words":120}'),
            # A task-capable tool that ends within task_after is answered inline to a client
            # that did not declare the tasks extension (SPEC §14).
            ("long_count", {"n": 3, "delay_ms": 0}, "counted to 3"),
        ]
        for name, arguments, expected in calls:
            try:
                callback = on_progress if name == "count_to" else None
                result = await client.call_tool(name, arguments, progress_callback=callback)
            except Exception as error:  # noqa: BLE001 - every failure is reported
                failures.append(f"{name}: {type(error).__name__}: {error}")
                continue
            text = result.content[0].text if result.content else None
            if result.is_error or (expected is not None and text != expected):
                failures.append(f"{name}: is_error={result.is_error} text={text!r}")
            if name == "note_stats" and result.structured_content != {"notes": 3, "words": 120}:
                failures.append(f"note_stats: structuredContent={result.structured_content!r}")
        # A tool that runs only as a task is refused to a client that did not ask for one:
        # 2025-11-25's own -32601 (call it with `task`), else -32021 (declare the extension).
        code = -32601 if client.session.protocol_version == "2025-11-25" else -32021
        try:
            refused = await client.call_tool("publish_report", {"name": "q4"})
            failures.append(f"publish_report: answered {refused!r}, expected {code}")
        except Exception as error:  # noqa: BLE001 - the refusal is the expected outcome
            if getattr(getattr(error, "error", None), "code", None) != code and str(code) not in repr(error):
                failures.append(f"publish_report: {type(error).__name__}: {error}")
        if client.session.protocol_version == "2026-07-28":
            failures += await check_refused_retries(client.session)
        version = client.session.protocol_version
    # Progress notifications may trail the result by a moment.
    if progress[:1] != [0] or progress[-1:] != [3]:
        failures.append(f"progress: {progress}")
    if len(asked) != 2:
        failures.append(f"asked {len(asked)} times: {asked}")
    return version, failures


async def refused(retry, what):
    """Awaits a retry that must be refused with -32602; returns the failures."""
    try:
        answered = await retry
    except Exception as error:  # noqa: BLE001 - the refusal is the expected outcome
        if getattr(getattr(error, "error", None), "code", None) == -32602:
            return []
        return [f"{what}: {type(error).__name__}: {error}"]
    return [f"{what}: answered {answered!r}, expected -32602"]


async def check_refused_retries(session):
    """Retries `delete_note`'s MRTR suspension the ways SPEC §8C/§10B refuse with -32602: a
    tampered requestState, a malformed answer, then a used state after the one real retry."""
    first = await session.call_tool("delete_note", {"id": 1}, allow_input_required=True)
    if not isinstance(first, types.InputRequiredResult) or not first.request_state:
        return [f"delete_note: expected an input request, got {first!r}"]
    state, key = first.request_state, next(iter(first.input_requests))
    approve = {key: types.ElicitResult(action="accept", content={})}
    middle = len(state) // 2
    tampered = state[:middle] + ("A" if state[middle] != "A" else "B") + state[middle + 1:]
    failures = await refused(session.call_tool("delete_note", {"id": 1}, input_responses=approve,
                                               request_state=tampered, allow_input_required=True),
                             "tampered requestState")
    # Content that is no object: the SDK's model would refuse to build it, so it is constructed.
    malformed = {key: types.ElicitResult.model_construct(action="accept", content="yes")}
    warnings.filterwarnings("ignore", message="Pydantic serializer warnings")
    failures += await refused(session.call_tool("delete_note", {"id": 1}, input_responses=malformed,
                                                request_state=state, allow_input_required=True),
                              "malformed answer")
    done = await session.call_tool("delete_note", {"id": 1}, input_responses=approve,
                                   request_state=state, allow_input_required=True)
    text = done.content[0].text if getattr(done, "content", None) else None
    if getattr(done, "is_error", True) or text != "deleted note 1":
        failures.append(f"approved retry: {done!r}")
    failures += await refused(session.call_tool("delete_note", {"id": 1}, input_responses=approve,
                                                request_state=state, allow_input_required=True),
                              "used requestState")
    return failures


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_http(stateless):
    port = free_port()
    args = [SERVER, "--http", f"127.0.0.1:{port}"] + (["--stateless"] if stateless else [])
    process = subprocess.Popen(args, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            break
        except OSError:
            time.sleep(0.05)
    return process, f"http://127.0.0.1:{port}/mcp"


async def main():
    total_failures = 0
    stdio = StdioServerParameters(command=SERVER, args=[])
    servers = [("stdio", lambda: (None, stdio)),
               ("http sessions", lambda: start_http(False)),
               ("http stateless", lambda: start_http(True))]
    for transport, start in servers:
        for mode in ["auto", "legacy"]:
            process, target = start()
            try:
                version, failures = await check(target, mode)
            except Exception as error:  # noqa: BLE001
                version, failures = "?", [f"{type(error).__name__}: {error}"]
            finally:
                if process is not None:
                    process.terminate()
                    process.wait(timeout=10)
            # A stateless server cannot send elicitation/create: legacy clients see isError.
            if transport == "http stateless" and mode == "legacy":
                failures = [f for f in failures if not f.startswith(("delete_note", "pick_environment", "asked"))]
            status = "ok" if not failures else "FAILED"
            print(f"{transport:15} {mode:7} {version:11} {status}")
            for failure in failures:
                print(f"    {failure}")
            total_failures += len(failures)
    sys.exit(1 if total_failures else 0)


asyncio.run(main())
