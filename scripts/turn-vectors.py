"""Regenerates toolnexus/tests/conformance/turn/*.json: one turn of each API, checked against
the providers' own SDK types (SPEC §8B).

    python3 -m venv /tmp/v && /tmp/v/bin/pip install openai google-genai anthropic
    /tmp/v/bin/python scripts/turn-vectors.py toolnexus/tests/conformance/turn

For each API a file holds:
- `response`: a response body with four tool calls, parsed by the SDK's response model and
  written back as the SDK serializes it;
- `calls`: the calls as the SDK's parsed objects give them (ids, names, arguments text);
- `results`: four ToolResults (text, an error, an image with a caption, and parts no API
  but Chat's audio takes), in the toolnexus wire form;
- `answer`: what `tool_results` must append, written here from SPEC §8A/§8B and validated
  against the SDK's request types with unknown keys forbidden;
- for the Responses API, `definitions`: tools and the `to_openai_responses()` entries, each
  validated as a `FunctionToolParam`.

The Rust tests (toolnexus/tests/provider/turn_vectors.rs) compare against these files; no Python there.

Gemini's `functionResponse` has no other port to be checked against: the Python port
(toolnexus 0.21.0 on PyPI) and the upstream Rust crate (toolnexus 0.23.0 on crates.io) send
Gemini function declarations only; their loops speak the OpenAI and Anthropic styles, and
0.23's client.rs says so ("Gemini is a schema adapter only ... there is no Gemini wire style
in the loop"). The shape here is google-genai's `FunctionResponse` (`response` with "output"
or "error", as its field doc says; media in `parts[].inlineData`; `fileData` is Vertex AI
only).
"""
import importlib.metadata
import json
import sys
from pathlib import Path

from pydantic import ConfigDict, TypeAdapter

FORBID = ConfigDict(extra="forbid")
PNG = "iVBORw=="  # b"\x89PNG"
CSV = "YSxi"  # b"a,b"
WAV = "AAAAAAAAAAAAAA=="  # 10 zero bytes

RESULTS = [
    {"output": "Paris: 18°C, dry", "isError": False},
    {"output": "no weather station in Atlantis", "isError": True},
    {
        "output": "chart",
        "isError": False,
        "parts": [
            {"type": "image", "mimeType": "image/png", "data": PNG},
            {"type": "text", "text": "a caption"},
        ],
    },
    {
        "output": "report",
        "isError": False,
        "parts": [
            {"type": "file", "mimeType": "text/csv", "data": CSV, "name": "r.csv"},
            {"type": "audio", "mimeType": "audio/wav", "data": WAV},
        ],
    },
]
CSV_PLACEHOLDER = "[unsupported file part (text/csv, 3 bytes)]"
WAV_PLACEHOLDER = "[unsupported audio part (audio/wav, 10 bytes)]"

# Every API's calls: (name, arguments).
CALLS = [
    ("get_weather", {"city": "Paris"}),
    ("get_weather", {"city": "Atlantis"}),
    ("plot", {}),
    ("report", {"format": "csv", "days": 7}),
]


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def version(package):
    return f"{package} {importlib.metadata.version(package)}"


def chat():
    from openai.types.chat import ChatCompletion, ChatCompletionMessageParam

    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1764547200,
        "model": "gpt-5",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": f"call_{chr(97 + i)}", "type": "function",
                         "function": {"name": name, "arguments": compact(args)}}
                        for i, (name, args) in enumerate(CALLS)
                    ],
                },
            }
        ],
    }
    parsed = ChatCompletion.model_validate(body)
    calls = [
        {"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
        for c in parsed.choices[0].message.tool_calls
    ]
    ids = [c["id"] for c in calls]
    answer = [
        {"role": "tool", "tool_call_id": ids[0], "content": RESULTS[0]["output"]},
        {"role": "tool", "tool_call_id": ids[1], "content": RESULTS[1]["output"]},
        {"role": "tool", "tool_call_id": ids[2], "content": [
            {"type": "text", "text": "chart"}, {"type": "text", "text": "a caption"}]},
        {"role": "tool", "tool_call_id": ids[3], "content": "report"},
        {"role": "user", "content": [
            {"type": "text", "text": f"Output of tool plot ({ids[2]}):"},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
            {"type": "text", "text": f"Output of tool report ({ids[3]}):"},
            {"type": "text", "text": CSV_PLACEHOLDER},
            {"type": "input_audio", "input_audio": {"data": WAV, "format": "wav"}},
        ]},
    ]
    checker = TypeAdapter(ChatCompletionMessageParam, config=FORBID)
    for message in answer:
        checker.validate_python(message)
    dumped = parsed.model_dump(mode="json", exclude_unset=True)
    return {"api": "OpenAiChat", "sdk": version("openai"), "response": dumped,
            "calls": calls, "results": RESULTS, "answer": answer}


def responses():
    from openai.types.responses import FunctionToolParam, Response, ResponseInputItemParam

    body = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1764547200,
        "model": "gpt-5",
        "status": "completed",
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": []},
            *[
                {"type": "function_call", "id": f"fc_{i}", "call_id": f"call_{chr(97 + i)}",
                 "name": name, "arguments": compact(args), "status": "completed"}
                for i, (name, args) in enumerate(CALLS)
            ],
        ],
    }
    parsed = Response.model_validate(body)
    calls = [
        {"id": item.call_id, "name": item.name, "arguments": item.arguments}
        for item in parsed.output
        if item.type == "function_call"
    ]
    ids = [c["id"] for c in calls]
    answer = [
        {"type": "function_call_output", "call_id": ids[0], "output": RESULTS[0]["output"]},
        {"type": "function_call_output", "call_id": ids[1], "output": RESULTS[1]["output"]},
        {"type": "function_call_output", "call_id": ids[2], "output": [
            {"type": "input_text", "text": "chart"},
            {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}"},
            {"type": "input_text", "text": "a caption"},
        ]},
        {"type": "function_call_output", "call_id": ids[3], "output": [
            {"type": "input_text", "text": "report"},
            {"type": "input_text", "text": CSV_PLACEHOLDER},
            {"type": "input_text", "text": WAV_PLACEHOLDER},
        ]},
    ]
    checker = TypeAdapter(ResponseInputItemParam, config=FORBID)
    for item in answer:
        checker.validate_python(item)
    weather = {"type": "object", "properties": {"city": {"type": "string"},
               "days": {"type": "integer"}}, "required": ["city"]}
    labels = {"type": "object", "properties": {"labels": {"type": "object",
              "additionalProperties": {"type": "string"}}}, "required": ["labels"]}
    tools = [
        {"name": "weather", "description": "Current weather", "schema": weather},
        {"name": "tag", "description": "Tag a ticket", "schema": labels},
    ]
    expected = [
        # Strict mode can say it: every property required, the optional one nullable, closed.
        {"type": "function", "name": "weather", "description": "Current weather",
         "parameters": {"type": "object", "properties": {"city": {"type": "string"},
                        "days": {"type": ["integer", "null"]}},
                        "required": ["city", "days"], "additionalProperties": False},
         "strict": True},
        # A map it cannot: the plain schema, not enforced.
        {"type": "function", "name": "tag", "description": "Tag a ticket",
         "parameters": labels, "strict": False},
    ]
    # A TypedDict takes the config only from inside a container.
    TypeAdapter(list[FunctionToolParam], config=FORBID).validate_python(expected)
    dumped = parsed.model_dump(mode="json", exclude_unset=True)
    return {"api": "OpenAiResponses", "sdk": version("openai"), "response": dumped,
            "calls": calls, "results": RESULTS, "answer": answer,
            "definitions": {"tools": tools, "expected": expected}}


def anthropic():
    from anthropic.types import Message, MessageParam

    body = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 20},
        "content": [
            {"type": "text", "text": "Let me look."},
            *[
                {"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": args}
                for i, (name, args) in enumerate(CALLS)
            ],
        ],
    }
    parsed = Message.model_validate(body)
    calls = [
        {"id": block.id, "name": block.name, "arguments": compact(block.input)}
        for block in parsed.content
        if block.type == "tool_use"
    ]
    ids = [c["id"] for c in calls]
    answer = [{"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": ids[0], "content": RESULTS[0]["output"],
         "is_error": False},
        {"type": "tool_result", "tool_use_id": ids[1], "content": RESULTS[1]["output"],
         "is_error": True},
        {"type": "tool_result", "tool_use_id": ids[2], "is_error": False, "content": [
            {"type": "text", "text": "chart"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": PNG}},
            {"type": "text", "text": "a caption"},
        ]},
        {"type": "tool_result", "tool_use_id": ids[3], "is_error": False, "content": [
            {"type": "text", "text": "report"},
            {"type": "text", "text": CSV_PLACEHOLDER},
            {"type": "text", "text": WAV_PLACEHOLDER},
        ]},
    ]}]
    TypeAdapter(list[MessageParam], config=FORBID).validate_python(answer)
    dumped = parsed.model_dump(mode="json", exclude_unset=True)
    return {"api": "Anthropic", "sdk": version("anthropic"), "response": dumped,
            "calls": calls, "results": RESULTS, "answer": answer}


def gemini():
    from google.genai import types

    # Gemini sends ids for some calls and not others; the ones without get `call_<index>`.
    ids = [None, "fc_b", None, "fc_d"]
    parts = [{"text": "Let me look."}]
    for id_, (name, args) in zip(ids, CALLS):
        call = {"name": name, "args": args}
        if id_:
            call["id"] = id_
        parts.append({"functionCall": call})
    body = {"candidates": [{"content": {"role": "model", "parts": parts},
                            "finishReason": "STOP", "index": 0}],
            "modelVersion": "gemini-3-pro"}
    parsed = types.GenerateContentResponse.model_validate_json(json.dumps(body))
    calls = [
        {"id": call.id or f"call_{i}", "name": call.name, "arguments": compact(call.args or {})}
        for i, call in enumerate(parsed.function_calls)
    ]

    def response(i, result, payload, inline=None):
        function_response = {"name": calls[i]["name"]}
        if ids[i]:
            function_response["id"] = ids[i]
        function_response["response"] = payload
        if inline:
            function_response["parts"] = inline
        return {"functionResponse": function_response}

    answer = [{"role": "user", "parts": [
        response(0, RESULTS[0], {"output": RESULTS[0]["output"]}),
        response(1, RESULTS[1], {"error": RESULTS[1]["output"]}),
        response(2, RESULTS[2], {"output": "chart\na caption"},
                 [{"inlineData": {"mimeType": "image/png", "data": PNG}}]),
        response(3, RESULTS[3], {"output": f"report\n{CSV_PLACEHOLDER}\n{WAV_PLACEHOLDER}"}),
    ]}]
    for content in answer:
        # By JSON, so `data` is read as base64 as the REST API reads it; unknown keys are
        # refused by the SDK's models; and it must write back exactly what was given.
        checked = types.Content.model_validate_json(json.dumps(content))
        again = checked.model_dump(mode="json", by_alias=True, exclude_none=True)
        assert again == content, (again, content)
    dumped = parsed.model_dump(mode="json", by_alias=True, exclude_none=True)
    return {"api": "Gemini", "sdk": version("google-genai"), "response": dumped,
            "calls": calls, "results": RESULTS, "answer": answer}


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for name, make in [("chat", chat), ("responses", responses), ("anthropic", anthropic),
                       ("gemini", gemini)]:
        text = json.dumps(make(), indent=2, ensure_ascii=False) + "\n"
        (out / f"{name}.json").write_text(text, encoding="utf-8")


main()
