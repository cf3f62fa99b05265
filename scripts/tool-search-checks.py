#!/usr/bin/env python3
"""Runs the tool-search shapes toolnexus sends and reads through the providers' own SDK types
(issue 42, SPEC §15).

Reads toolnexus/tests/vectors/tool_search.json (written by `UPDATE_PROVIDER_VECTORS=1 cargo
test -p toolnexus --test provider tool_search`) and checks:

- every tool entry sent to Anthropic is a `ToolUnionParam` (custom tools with `defer_loading`,
  `tool_search_tool_bm25_20251119` / `_regex_20251119`), every one sent to OpenAI Responses a
  Responses `ToolParam` (functions with `defer_loading`, `namespace`, `tool_search`), every Chat
  entry a `ChatCompletionToolUnionParam`;
- every response body read is the SDK's `Message` / `Response` (search items included:
  `server_tool_use`, `tool_search_tool_result`, `tool_search_call`, `tool_search_output`);
- every message or item written back is an Anthropic `MessageParam` (`tool_reference` blocks
  in a `tool_result`) or a Responses `ResponseInputItemParam` (`tool_search_output`).

A TypedDict validated by pydantic keeps only the keys the SDK knows, so each value must come
back equal to what was sent: a key the SDK does not have is a failure, not silently dropped.

Needs `pip install anthropic openai`. Exits non-zero on the first disagreement.
"""

import json
import pathlib
import sys

from anthropic.types import Message, MessageParam, ToolUnionParam
from openai.types.chat import ChatCompletionToolUnionParam
from openai.types.responses import Response, ResponseInputItemParam, ToolParam
from pydantic import TypeAdapter

VECTORS = pathlib.Path(__file__).resolve().parent.parent / "toolnexus/tests/vectors/tool_search.json"


def materialize(value):
    """The validated value as plain JSON: the SDKs type lists as `Iterable`, which pydantic
    validates lazily (each item is checked here, as it is read)."""
    if isinstance(value, dict):
        return {key: materialize(item) for key, item in value.items()}
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return [materialize(item) for item in value]


def check_param(failures, label, adapter, value):
    try:
        back = materialize(adapter.validate_python(value))
    except Exception as error:
        failures.append(f"{label}: the SDK refuses it: {str(error)[:2000]}")
        return
    if back != value:
        failures.append(f"{label}: the SDK keeps\n  {json.dumps(back)}\n  of what was sent\n  {json.dumps(value)}")


def check_model(failures, label, model, body):
    try:
        parsed = model.model_validate(body)
    except Exception as error:
        failures.append(f"{label}: the SDK refuses the body: {str(error)[:2000]}")
        return
    back = parsed.model_dump(mode="json", exclude_unset=True)
    if back != body:
        failures.append(f"{label}: the SDK reads the body otherwise:\n  {json.dumps(back)}")


def main() -> int:
    vectors = json.loads(VECTORS.read_text())
    failures = []
    anthropic_tool = TypeAdapter(ToolUnionParam)
    responses_tool = TypeAdapter(ToolParam)
    chat_tool = TypeAdapter(ChatCompletionToolUnionParam)
    checked = 0
    for name, sent in vectors["definitions"].items():
        if name.startswith("anthropic"):
            adapter = anthropic_tool
        elif name.startswith("responses"):
            adapter = responses_tool
        elif name == "chat":
            adapter = chat_tool
        else:
            continue  # Gemini: declarations, checked by provider-schema-checks.py
        for at, entry in enumerate(sent):
            check_param(failures, f"definitions.{name}[{at}]", adapter, entry)
            checked += 1
    for name, body in vectors["responses"].items():
        model = Message if name.startswith("anthropic") else Response
        check_model(failures, f"responses.{name}", model, body)
        checked += 1
    message = TypeAdapter(MessageParam)
    item = TypeAdapter(ResponseInputItemParam)
    for name, written in vectors["results"].items():
        adapter = message if name.startswith("anthropic") else item
        for at, value in enumerate(written):
            check_param(failures, f"results.{name}[{at}]", adapter, value)
            checked += 1
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"{checked} tool-search shapes checked against the anthropic and openai SDK types; {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
