"""Generates toolnexus/tests/vectors/mcp_client_results.json: MCP CallToolResults as the Python
port (toolnexus==0.21.0, mcp_source.py) maps them to ToolResults, through its own tool's
execute (a stub session returns each result), for toolnexus/src/mcp/client/convert.rs's golden
test.

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install toolnexus==0.21.0
    /tmp/venv/bin/python scripts/mcp_client_vectors.py > toolnexus/tests/vectors/mcp_client_results.json

Where SPEC §13 pins a different answer, the vector carries `rust` (what this port answers)
and `why`; the test holds the Rust port to `rust` when present, else to `python`.
"""

import asyncio
import json
import sys

from mcp import types
from toolnexus import mcp_source

PNG = "iVBORw0KGgo="
WAV = "UklGRiQAAABXQVZF"
PDF = "JVBERi0xLjQK"

CASES = [
    ("text", {"content": [{"type": "text", "text": "hello"}]}, None),
    ("texts joined", {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}, None),
    ("empty", {"content": []}, None),
    ("image and text", {"content": [{"type": "text", "text": "chart"}, {"type": "image", "data": PNG, "mimeType": "image/png"}]}, None),
    ("image only", {"content": [{"type": "image", "data": PNG, "mimeType": "image/png"}]}, None),
    ("audio only", {"content": [{"type": "audio", "data": WAV, "mimeType": "audio/wav"}]}, None),
    ("embedded blob", {"content": [{"type": "text", "text": "report"}, {"type": "resource", "resource": {"uri": "file:///r.pdf", "mimeType": "application/pdf", "blob": PDF}}]}, None),
    ("embedded blob without a mime", {"content": [{"type": "resource", "resource": {"uri": "file:///r.bin", "blob": PDF}}]}, None),
    ("embedded text", {"content": [{"type": "text", "text": "see"}, {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "contents"}}]},
     "SPEC §13: an embedded resource is a file part (its text joins the output too, as Python does)",
     {"parts": [{"type": "file", "mimeType": "text/plain", "data": "Y29udGVudHM=", "name": "file:///a.txt"}]}),
    ("structured without text", {"content": [], "structuredContent": {"notes": 3, "words": 120}},
     "SPEC §13 and §8: output is the JSON text as serde writes it (compact), which our server sends as the text block",
     {"output": "{\"notes\":3,\"words\":120}"}),
    ("structured with text", {"content": [{"type": "text", "text": "{\"notes\":3}"}], "structuredContent": {"notes": 3}},
     "SPEC §13: structuredContent is the output only without text; the text block wins",
     {"output": "{\"notes\":3}"}),
    ("error", {"content": [{"type": "text", "text": "no such city"}], "isError": True}, None),
    ("error with two texts", {"content": [{"type": "text", "text": "bad"}, {"type": "text", "text": "worse"}], "isError": True},
     "SPEC §13: text blocks join with \"\\n\", isError or not",
     {"output": "bad\nworse"}),
    ("error without text", {"content": [], "isError": True}, None),
    ("resource link", {"content": [{"type": "resource_link", "uri": "file:///notes/1.md", "name": "1.md", "mimeType": "text/markdown"}]},
     "SPEC §13: a resource link is a line of output naming the uri (the file part with its url is kept too, as Python does)",
     {"output": "resource link: file:///notes/1.md"}),
    ("resource link beside text", {"content": [{"type": "text", "text": "found"}, {"type": "resource_link", "uri": "https://x.example/a", "name": "a"}]},
     "SPEC §13: a resource link is a line of output naming the uri",
     {"output": "found\nresource link: https://x.example/a"}),
]


class Session:
    def __init__(self, result):
        self.result = result

    async def call_tool(self, name, arguments=None, read_timeout_seconds=None):
        return self.result


def wire(result):
    out = {"output": result.output, "isError": result.is_error}
    if result.parts:
        out["parts"] = result.parts
    if result.metadata:
        out["metadata"] = result.metadata
    return out


async def main():
    vectors = []
    defn = types.Tool(name="t", description="", inputSchema={"type": "object"})
    for name, result, why, *patch in CASES:
        parsed = types.CallToolResult.model_validate(result)
        tool = mcp_source._convert_tool("srv", defn, Session(parsed), 5)
        mapped = await tool.execute({}, None)
        vector = {"name": name, "result": result, "python": wire(mapped)}
        if why:
            vector["why"] = why
            vector["rust"] = {**vector["python"], **patch[0]}
        vectors.append(vector)
    json.dump({"generator": "toolnexus==0.21.0 (PyPI) mcp_source._convert_tool", "server": "srv", "vectors": vectors},
              sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


asyncio.run(main())
