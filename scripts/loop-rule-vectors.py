"""Regenerates toolnexus/tests/conformance/loop_rule.json from the published Python port.

    python3 -m venv /tmp/v && /tmp/v/bin/pip install toolnexus==0.21.0
    /tmp/v/bin/python scripts/loop-rule-vectors.py > toolnexus/tests/conformance/loop_rule.json

The vectors are the outputs of the §10 loop rule (`Toolkit::call` here) for a tool that asks
"Deploy to production?" and, once answered, either finishes or asks "Really, really deploy?".
"""
import asyncio
import json

from toolnexus import Answer, ToolResult, pending, pending_of
from toolnexus.client import Client


def deploy_fn(suspend_twice):
    def deploy(ctx=None):
        answer = getattr(ctx, "answer", None) if ctx else None
        if answer is None:
            return pending(id="pnd-fixed", kind="approval", prompt="Deploy to production?")
        if suspend_twice:
            return pending(id="pnd-again", kind="approval", prompt="Really, really deploy?")
        return ToolResult(output="deployed")

    return deploy


async def resolve(answer, suspend_twice):
    async def wait_for(_request):
        return answer

    deploy = deploy_fn(suspend_twice)

    class Tk:
        def get(self, _name):
            return None

        async def execute(self, _name, _args, ctx):
            return deploy(ctx)

    client = Client(base_url="http://127.0.0.1:9", style="openai", model="m", wait_for=wait_for)
    first = deploy(None)
    request = pending_of(first)
    result, _ = await client._resolve_pending(Tk(), "deploy", {}, request, "call_1", 1)
    return {"output": result.output, "isError": result.is_error}


async def main():
    vectors = {}
    for reason in ["declined", "expired", "cancelled", None]:
        key = f"refused_{reason or 'without_reason'}"
        vectors[key] = await resolve(Answer(id="pnd-fixed", ok=False, reason=reason), False)
    vectors["unresolved"] = await resolve(Answer(id="pnd-fixed", ok=True), True)
    print(json.dumps(vectors, indent=2, sort_keys=True))


asyncio.run(main())
