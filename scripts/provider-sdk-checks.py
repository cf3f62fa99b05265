#!/usr/bin/env python3
"""Validates what toolnexus sends and reads on each API with the providers' own SDK types
(issue 52, SPEC §16).

The corpus is written by `tests/provider/wire/corpus.rs` as `<api>.json`: for Chat
Completions, Responses, Anthropic Messages and Gemini, every request body the wire tests
render (same-API histories with their echoed reasoning, thinking blocks and thought
signatures; histories begun on the other APIs; user image parts; tool results with images;
streamed and not) and every reply body and streamed event they read. `tests/conversations`
adds request bodies as `<api>.<name>.json` (`{"requests": [...]}`): `switched` (each API
continuing a conversation begun on each other), `resumed` (a run parked on one API resumed on
another), `generated` (generated conversations moving between the APIs: tool rounds, parallel
calls, image, audio and PDF parts, suspensions answered in the loop or parked and resumed)
and `compacted` (the `Compactor`'s requests for generated long transcripts). Each is
validated with:

- openai: `completion_create_params.CompletionCreateParams{Streaming,NonStreaming}` and
  `response_create_params.ResponseCreateParams{Streaming,NonStreaming}` (TypedDicts, through a
  pydantic TypeAdapter), `ChatCompletion`, `ChatCompletionChunk`, `Response`,
  `ResponseStreamEvent`;
- anthropic: `MessageCreateParams{Streaming,NonStreaming}`, `Message`, `RawMessageStreamEvent`;
- google-genai: `Content` (each of `contents`, and `systemInstruction`), `Tool` (each of
  `tools`), `GenerationConfig` (a typed run's `generationConfig`, SPEC §16B), and
  `GenerateContentResponse` (each whole reply and each streamed chunk).

Typed runs' requests (SPEC §16B) are among the requests: Chat's `response_format`, Responses'
`text.format`, Anthropic's answer tool and `tool_choice`, Gemini's `generationConfig`.

Strict: every TypedDict is closed (`extra='forbid'`), every SDK model is checked for fields it
does not know (`model_extra`), and lazily validated iterables are consumed, so a misspelled or
misplaced field is an error, not silently kept.

Usage: `python3 scripts/provider-sdk-checks.py [CORPUS_DIR]`; without a directory it runs
`cargo test -p toolnexus --test provider wire::corpus` and `cargo test -p toolnexus --test
conversations` with `TOOLNEXUS_WIRE_CORPUS` set to a scratch directory first. Needs `pip install openai anthropic google-genai`. Prints the counts
per API and exits non-zero if any body is refused.
"""

import json
import os
import pathlib
import subprocess
import sys
import tempfile
import typing_extensions

import pydantic
from pydantic import TypeAdapter

import anthropic.types as anthropic_types
from anthropic.types import message_create_params as anthropic_params
import openai.types.chat as chat_types
from openai.types.chat import completion_create_params as chat_params
import openai.types.responses as responses_types
from openai.types.responses import response_create_params as responses_params
from google.genai import types as genai

ROOT = pathlib.Path(__file__).resolve().parent.parent


def close_typed_dicts() -> None:
    """Makes every SDK TypedDict refuse keys it does not declare."""
    prefixes = ("openai.types", "anthropic.types")
    for name, module in list(sys.modules.items()):
        if not name.startswith(prefixes):
            continue
        for value in vars(module).values():
            if isinstance(value, type) and typing_extensions.is_typeddict(value):
                value.__pydantic_config__ = pydantic.ConfigDict(extra="forbid", arbitrary_types_allowed=True)


def consume(value, path="") -> None:
    """Walks a validated value, consuming the iterables pydantic validates lazily."""
    if isinstance(value, dict):
        for key, item in value.items():
            consume(item, f"{path}.{key}")
    elif isinstance(value, (list, tuple)):
        for at, item in enumerate(value):
            consume(item, f"{path}[{at}]")
    elif isinstance(value, (str, bytes, int, float, bool)) or value is None:
        return
    elif isinstance(value, pydantic.BaseModel):
        return
    elif hasattr(value, "__iter__"):
        consume(list(value), path)


def unknown_fields(model, path="") -> list:
    """The fields an SDK model kept without declaring them, with their paths."""
    found = []
    if isinstance(model, pydantic.BaseModel):
        for key in (model.model_extra or {}):
            found.append(f"{path}.{key}")
        for key in type(model).model_fields:
            found += unknown_fields(getattr(model, key), f"{path}.{key}")
    elif isinstance(model, (list, tuple)):
        for at, item in enumerate(model):
            found += unknown_fields(item, f"{path}[{at}]")
    elif isinstance(model, dict):
        for key, item in model.items():
            found += unknown_fields(item, f"{path}.{key}")
    return found


def typed(adapter: TypeAdapter):
    def check(body):
        consume(adapter.validate_python(body))

    return check


def model(cls):
    def check(body):
        extra = unknown_fields(cls.model_validate(body))
        if extra:
            raise ValueError(f"fields {cls.__name__} does not declare: {extra}")

    return check


def union(adapter: TypeAdapter):
    def check(body):
        extra = unknown_fields(adapter.validate_python(body))
        if extra:
            raise ValueError(f"fields the SDK does not declare: {extra}")

    return check


def anthropic_event(adapter: TypeAdapter):
    """`RawMessageStreamEvent`, and `ping`, which the SDK's stream reads and skips."""
    check = union(adapter)

    def event(body):
        if body != {"type": "ping"}:
            check(body)

    return event


def gemini_request(body):
    allowed = {"contents", "systemInstruction", "tools", "generationConfig"}
    if set(body) - allowed:
        raise ValueError(f"unknown request fields {sorted(set(body) - allowed)}")
    for content in body["contents"]:
        genai.Content.model_validate(content)
    if "systemInstruction" in body:
        genai.Content.model_validate(body["systemInstruction"])
    for tool in body.get("tools", []):
        genai.Tool.model_validate(tool)
    if "generationConfig" in body:
        genai.GenerationConfig.model_validate(body["generationConfig"])


def checks():
    close_typed_dicts()
    adapter = lambda t: TypeAdapter(t)  # noqa: E731
    chat = (typed(adapter(chat_params.CompletionCreateParamsNonStreaming)),
            typed(adapter(chat_params.CompletionCreateParamsStreaming)))
    responses = (typed(adapter(responses_params.ResponseCreateParamsNonStreaming)),
                 typed(adapter(responses_params.ResponseCreateParamsStreaming)))
    claude = (typed(adapter(anthropic_params.MessageCreateParamsNonStreaming)),
              typed(adapter(anthropic_params.MessageCreateParamsStreaming)))
    return {
        "openai_chat": (lambda b: chat[bool(b.get("stream"))](b),
                        model(chat_types.ChatCompletion), model(chat_types.ChatCompletionChunk)),
        "openai_responses": (lambda b: responses[bool(b.get("stream"))](b),
                             model(responses_types.Response),
                             union(adapter(responses_types.ResponseStreamEvent))),
        "anthropic": (lambda b: claude[bool(b.get("stream"))](b),
                      model(anthropic_types.Message),
                      anthropic_event(adapter(anthropic_types.RawMessageStreamEvent))),
        "gemini": (gemini_request, model(genai.GenerateContentResponse),
                   model(genai.GenerateContentResponse)),
    }


def brief(error: Exception) -> str:
    """A validation error's shortest explanations (a union's error lists every branch)."""
    if not isinstance(error, pydantic.ValidationError):
        return str(error)
    errors = sorted(error.errors(), key=lambda e: len(e["loc"]))
    return "; ".join(
        f"{'.'.join(str(step) for step in e['loc'] if '[' not in str(step))}: {e['msg']} ({str(e.get('input'))[:80]})"
        for e in errors[:3]
    )


def corpus_dir() -> pathlib.Path:
    if len(sys.argv) > 1:
        return pathlib.Path(sys.argv[1])
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="toolnexus-wire-"))
    for test in (["provider", "wire::corpus"], ["conversations"]):
        subprocess.run(
            ["cargo", "test", "-p", "toolnexus", "--test", *test],
            cwd=ROOT, check=True, env={**os.environ, "TOOLNEXUS_WIRE_CORPUS": str(scratch)},
        )
    return scratch


def refused(check, body) -> bool:
    try:
        check(body)
    except Exception:  # what the self-check wants
        return True
    return False


def strict_self_check(api, request, reply, corpus) -> list:
    """A field the SDK does not declare, nested in a request and in a reply, must be refused:
    else the checks above would pass anything."""
    body = json.loads(json.dumps(corpus["requests"][0]))
    key = {"openai_chat": "messages", "openai_responses": "input", "anthropic": "messages",
           "gemini": "contents"}[api]
    body[key][0]["bogus"] = 1
    answer = json.loads(json.dumps(corpus["replies"][0]))
    answer["usage" if "usage" in answer else "usageMetadata"]["bogus"] = 1
    missed = []
    if not refused(request, body):
        missed.append(f"{api}: a request with `{key}[0].bogus` passed")
    # A typed run's answer field (SPEC §16B), one level in: checked too, not passed through.
    answer_key, inner = {"openai_chat": ("response_format", "json_schema"),
                         "openai_responses": ("text", "format"),
                         "anthropic": ("tool_choice", None),
                         "gemini": ("generationConfig", None)}[api]
    typed_bodies = [b for b in corpus["requests"] if answer_key in b]
    if not typed_bodies:
        missed.append(f"{api}: no typed request in the corpus")
    else:
        typed_body = json.loads(json.dumps(typed_bodies[0]))
        field = typed_body[answer_key] if inner is None else typed_body[answer_key][inner]
        field["bogus"] = 1
        if not refused(request, typed_body):
            missed.append(f"{api}: a typed request with a bogus key in `{answer_key}` passed")
    if not refused(reply, answer):
        missed.append(f"{api}: a reply with an unknown usage field passed")
    return missed


def main() -> int:
    directory = corpus_dir()
    failures = []
    total = valid = 0
    for api, (request, reply, event) in checks().items():
        corpus = json.loads((directory / f"{api}.json").read_text())
        failures += strict_self_check(api, request, reply, corpus)
        counts = []
        for kind, check in [("requests", request), ("replies", reply), ("stream_events", event)]:
            bodies = corpus[kind]
            ok = 0
            for at, body in enumerate(bodies):
                try:
                    check(body)
                    ok += 1
                except Exception as error:  # the SDK refuses the body
                    failures.append(f"{api} {kind}[{at}]: {brief(error)}")
            counts.append(f"{ok}/{len(bodies)} {kind}")
            total += len(bodies)
            valid += ok
        print(f"{api}: " + ", ".join(counts))
        for path in sorted(directory.glob(f"{api}.*.json")):
            bodies = json.loads(path.read_text())["requests"]
            ok = 0
            for at, body in enumerate(bodies):
                try:
                    request(body)
                    ok += 1
                except Exception as error:  # the SDK refuses the body
                    failures.append(f"{path.name} requests[{at}]: {brief(error)}")
            print(f"  {path.name}: {ok}/{len(bodies)} requests")
            total += len(bodies)
            valid += ok
    for failure in failures[:20]:
        print(failure, file=sys.stderr)
    print(f"{valid} bodies valid of {total}")
    return 0 if valid == total and not failures else 1


if __name__ == "__main__":
    sys.exit(main())
