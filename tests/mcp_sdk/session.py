"""A session against `codesmith mcp` driven by the official MCP Python SDK.

Usage: python session.py BINARY WORKSPACE OUTSIDE MODE
MODE is an SDK connect mode: legacy (initialize handshake), auto (server/discover probe) or
2026-07-28. OUTSIDE is a directory the caller created outside the workspace; the session asks
to delete two directories in it, accepts one approval through its elicitation callback and
declines the other. Prints one line per check and exits non-zero on the first failure.
"""

import asyncio
import os
import sys

from mcp import Client, StdioServerParameters, types

BINARY, WORKSPACE, OUTSIDE, MODE = sys.argv[1:5]
asked = []


def check(condition, what):
    if not condition:
        print(f"FAIL [{MODE}] {what}")
        sys.exit(1)
    print(f"ok   [{MODE}] {what}")


async def elicit(context, params):
    asked.append(params.message)
    approve = "accepted" in params.message
    if not approve and "declined" not in params.message:
        return types.ElicitResult(action="cancel")
    return types.ElicitResult(action="accept", content={"approve": approve, "persist": False})


def text_of(result):
    return "\n".join(block.text for block in result.content if block.type == "text")


async def main():
    server = StdioServerParameters(
        command=BINARY,
        args=["--workspace", WORKSPACE, "--session", f"sdk-{MODE}", "mcp"],
        cwd=WORKSPACE,
    )
    async with Client(server, mode=MODE, elicitation_callback=elicit) as client:
        check(client.protocol_version in ("2025-11-25", "2026-07-28"), f"negotiated {client.protocol_version}")
        listed = await client.list_tools()
        names = [tool.name for tool in listed.tools]
        check(names[:3] == ["read_file", "edit_file", "write_file"], "tools/list in catalog order")
        read = next(tool for tool in listed.tools if tool.name == "read_file")
        check(read.annotations.read_only_hint is True and read.title == "Read file", "annotations and title")

        result = await client.call_tool("edit_file", {"path": "notes.txt", "search": "one", "replace": "uno"})
        check(result.is_error and result.structured_content["code"] == "not_read", "edit before read is refused")

        result = await client.call_tool("read_file", {"path": "notes.txt"})
        check(not result.is_error and "one" in text_of(result), "read_file")
        check(result.structured_content["total_lines"] == 2, "read_file structuredContent is data")

        result = await client.call_tool("edit_file", {"path": "notes.txt", "search": "one", "replace": "uno"})
        check(not result.is_error, "edit_file after read_file")
        with open(os.path.join(WORKSPACE, "notes.txt")) as f:
            check(f.read() == "uno\ntwo\n", "the edit is on disk")

        result = await client.call_tool("no_such_tool", {})
        check(result.is_error and result.structured_content["code"] == "unknown_tool", "unknown tool is isError")

        accepted = os.path.join(OUTSIDE, "accepted")
        result = await client.call_tool("exec_shell", {"command": f"rm -rf {accepted}"})
        check(not result.is_error, "an approval accepted through elicitation runs the command")
        check(not os.path.exists(accepted), "the approved command ran")

        declined = os.path.join(OUTSIDE, "declined")
        result = await client.call_tool("exec_shell", {"command": f"rm -rf {declined}"})
        check(result.is_error and result.structured_content.get("declined") == "accept", "a declined approval is isError")
        check(os.path.isdir(declined), "the declined command did not run")
        check(len(asked) == 2, f"the person was asked twice ({len(asked)})")


asyncio.run(main())
