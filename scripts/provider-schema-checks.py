#!/usr/bin/env python3
"""Runs what toolnexus sends through the providers' own SDKs (issue 17, SPEC §11).

Reads toolnexus/tests/vectors/provider_schemas.json (written by
`UPDATE_PROVIDER_VECTORS=1 cargo test -p toolnexus --test provider provider_vectors`) and checks, per tool:

- Anthropic: every `"strict": true` entry's `input_schema` comes out of the SDK's own
  strict-mode `transform_schema` (anthropic/lib/_parse/_transform.py) unchanged: nothing we
  send is one it would rewrite, move into the description or refuse.
- Gemini: every declaration is taken by google-genai's `FunctionDeclaration`, its
  `parametersJsonSchema` / `responseJsonSchema` arriving as sent.

Needs `pip install anthropic google-genai`. Exits non-zero on the first disagreement.
"""

import json
import pathlib
import sys

from anthropic.lib._parse._transform import transform_schema
from google.genai import types

VECTORS = pathlib.Path(__file__).resolve().parent.parent / "toolnexus/tests/vectors/provider_schemas.json"


def main() -> int:
    tools = json.loads(VECTORS.read_text())["tools"]
    failures = []
    strict = 0
    for tool in tools:
        name = tool["name"]
        entry = tool["anthropic_strict"]
        if entry["strict"]:
            strict += 1
            try:
                transformed = transform_schema(entry["input_schema"])
            except Exception as error:  # the SDK refuses the schema outright
                failures.append(f"{name}: Anthropic's transform refuses it: {error!r}")
            else:
                if transformed != entry["input_schema"]:
                    failures.append(
                        f"{name}: Anthropic's transform changes it:\n  sent {json.dumps(entry['input_schema'])}\n"
                        f"  gets {json.dumps(transformed)}"
                    )
        declaration = tool["gemini_json_schema"]
        try:
            parsed = types.FunctionDeclaration.model_validate(declaration)
        except Exception as error:
            failures.append(f"{name}: google-genai refuses the declaration: {error!r}")
            continue
        back = parsed.model_dump(mode="json", by_alias=True, exclude_none=True)
        for key in ["parametersJsonSchema", "responseJsonSchema"]:
            if back.get(key) != declaration.get(key):
                failures.append(f"{name}: google-genai does not keep `{key}` as sent")
        if "parameters" in back:
            failures.append(f"{name}: sent `parameters` beside `parametersJsonSchema`")
    for failure in failures:
        print(failure, file=sys.stderr)
    print(
        f"{len(tools)} tools: {strict} strict Anthropic schemas unchanged by its transform, "
        f"{len(tools)} Gemini declarations taken by FunctionDeclaration; {len(failures)} failures"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
