"""What the Model Context Protocol requires of a `tools/list` result and of a tool's output.

Checked three ways, none of them the server's own code:
- the SDK's protocol types (`mcp_types`, generated from the specification) parse the raw result;
- the constraints the specification's JSON Schema (revision 2025-11-25, definitions `Tool`,
  `ToolAnnotations` and `ListToolsResult`, modelcontextprotocol/modelcontextprotocol
  `schema/2025-11-25/schema.json`) puts on them, restated below as a JSON Schema of our own;
- every `inputSchema` and `outputSchema` is itself a valid JSON Schema (2020-12, the dialect the
  specification assumes when `$schema` is absent), checked with `jsonschema`'s meta-schema.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jsonschema
import mcp_types
from jsonschema import Draft202012Validator
from mcp.shared.tool_name_validation import validate_tool_name

# Restated from the specification's definitions: required members, their JSON types, the
# annotation hints as booleans, and input and output schemas with an object at the root.
_OBJECT_SCHEMA = {
    "type": "object",
    "required": ["type"],
    "properties": {
        "type": {"const": "object"},
        "properties": {"type": "object", "additionalProperties": {"type": "object"}},
        "required": {"type": "array", "items": {"type": "string"}},
        "$schema": {"type": "string"},
    },
}
TOOL = {
    "type": "object",
    "required": ["name", "inputSchema"],
    "properties": {
        "name": {"type": "string"},
        "title": {"type": "string"},
        "description": {"type": "string"},
        "inputSchema": _OBJECT_SCHEMA,
        "outputSchema": _OBJECT_SCHEMA,
        "annotations": {
            "type": "object",
            "properties": {
                "title": {"type": "string"},
                "readOnlyHint": {"type": "boolean"},
                "destructiveHint": {"type": "boolean"},
                "idempotentHint": {"type": "boolean"},
                "openWorldHint": {"type": "boolean"},
            },
        },
        "icons": {"type": "array"},
        "execution": {"type": "object"},
        "_meta": {"type": "object"},
    },
}
LIST_TOOLS_RESULT = {
    "type": "object",
    "required": ["tools"],
    "properties": {
        "tools": {"type": "array", "items": TOOL},
        "nextCursor": {"type": "string"},
        "_meta": {"type": "object"},
    },
}

TOOL_NAMES = {
    "diagnose_runai",
    "diagnose_modelarts",
    "scan_runai",
    "scan_modelarts",
    "replay_bundle",
    "explain_code",
}


def check_tools_list(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The raw `tools/list` result, checked; its tools."""
    jsonschema.validate(result, LIST_TOOLS_RESULT)
    parsed = mcp_types.ListToolsResult.model_validate(result)
    tools: list[dict[str, Any]] = result["tools"]
    assert {tool["name"] for tool in tools} == TOOL_NAMES == {tool.name for tool in parsed.tools}
    for tool in tools:
        assert validate_tool_name(tool["name"]).is_valid, tool["name"]
        Draft202012Validator.check_schema(tool["inputSchema"])
        Draft202012Validator.check_schema(tool["outputSchema"])
    return tools


# The product's own committed contract (diagnosis/schemas/), which every diagnosis must also meet.
PRODUCT_DIAGNOSIS_SCHEMA: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parents[2] / "diagnosis" / "schemas" / "diagnosis.v1.json").read_text(
        encoding="utf-8"
    )
)


def check_tool_output(tools: Sequence[Any], name: str, structured: dict[str, Any]) -> None:
    """A tool's structured content against the output schema it advertises, and every diagnosis
    in it against the product's committed diagnosis/v1 schema."""
    (tool,) = [tool for tool in tools if tool.name == name]
    assert tool.output_schema is not None
    jsonschema.validate(structured, tool.output_schema, cls=Draft202012Validator)
    if structured.get("schema") == "diagnosis/v1":
        diagnoses = [structured]
    else:
        diagnoses = [
            *structured.get("results", []),
            *([structured["error"]] if structured.get("error") else []),
        ]
    for item in diagnoses:
        jsonschema.validate(item, PRODUCT_DIAGNOSIS_SCHEMA, cls=Draft202012Validator)
