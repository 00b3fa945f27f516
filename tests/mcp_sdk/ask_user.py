"""ask_user over `codesmith mcp`, driven by the official MCP Python SDK.

Usage: python ask_user.py BINARY WORKSPACE MODE
MODE is an SDK connect mode: legacy (initialize handshake, elicitation/create), auto or
2026-07-28 (an input-required result the SDK answers and retries). The elicitation callback
answers the questions; the answers must come back as the tool results. Prints one line per
check and exits non-zero on the first failure.
"""

import asyncio
import sys

from mcp import Client, StdioServerParameters, types

BINARY, WORKSPACE, MODE = sys.argv[1:4]
asked = []


def check(condition, what):
    if not condition:
        print(f"FAIL [{MODE}] {what}")
        sys.exit(1)
    print(f"ok   [{MODE}] {what}")


async def elicit(context, params):
    asked.append(params)
    field = params.requested_schema["properties"]["answer"]
    if "Which config" in params.message:
        return types.ElicitResult(action="accept", content={"answer": field["enum"][1]})
    if "Port" in params.message:
        return types.ElicitResult(action="accept", content={"answer": "9090"})
    return types.ElicitResult(action="decline")


def text_of(result):
    return "\n".join(block.text for block in result.content if block.type == "text")


async def main():
    server = StdioServerParameters(
        command=BINARY,
        args=["--workspace", WORKSPACE, "--session", f"ask-{MODE}", "mcp"],
        cwd=WORKSPACE,
    )
    async with Client(server, mode=MODE, elicitation_callback=elicit) as client:
        listed = await client.list_tools()
        tool = next(tool for tool in listed.tools if tool.name == "ask_user")
        check(tool.annotations.read_only_hint is True, "ask_user is read-only")

        question = {"question": "Which config is the real one?", "choices": ["a.toml", "b.toml"]}
        result = await client.call_tool("ask_user", question)
        check(not result.is_error and text_of(result) == "b.toml", "a choice answered through elicitation")
        check(result.structured_content["choice"] == 2, "the choice's number is in structuredContent")
        check(asked[-1].requested_schema["properties"]["answer"]["enum"] == ["a.toml", "b.toml"], "choices are an enum")

        result = await client.call_tool("ask_user", {"question": "Port?", "default": "8080"})
        check(not result.is_error and text_of(result) == "9090", "free text answered through elicitation")
        check("enum" not in asked[-1].requested_schema["properties"]["answer"], "free text has no enum")

        result = await client.call_tool("ask_user", {"question": "Delete the cache?"})
        check(result.is_error and result.structured_content["declined"] == "decline", "a declined question is isError")
        check(len(asked) == 3, f"the person was asked three times ({len(asked)})")


asyncio.run(main())
