"""Every tool's schemas as a strict client reads them, and every tool's real results against its
outputSchema, through the official MCP Python SDK and the `jsonschema` package it validates with.

Usage: python schemas.py BINARY WORKSPACE
WORKSPACE is an empty directory the caller made. A stand-in web server on 127.0.0.1 answers
fetch_url and web_search (the workspace's config trusts that one address and nothing else).
Prints one line per check and exits non-zero on the first failure.
"""

import asyncio
import http.server
import json
import os
import sys
import threading

import jsonschema
from mcp import Client, StdioServerParameters, types

BINARY, WORKSPACE = sys.argv[1:3]

# The `format` values JSON Schema defines (2020-12, Validation 7.3).
STANDARD_FORMATS = {
    "date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname",
    "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template",
    "json-pointer", "relative-json-pointer", "regex",
}


def check(condition, what):
    if not condition:
        print(f"FAIL {what}")
        sys.exit(1)
    print(f"ok   {what}")


def formats(schema):
    """Every `format` keyword in a schema (property names called `format` are not keywords)."""
    found = []
    if isinstance(schema, dict):
        if isinstance(schema.get("format"), str):
            found.append(schema["format"])
        for key, value in schema.items():
            if key == "properties" and isinstance(value, dict):
                for sub in value.values():
                    found += formats(sub)
            elif key in ("items", "anyOf", "oneOf", "allOf", "additionalProperties", "not"):
                for sub in value if isinstance(value, list) else [value]:
                    found += formats(sub)
    return found


class Site(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith("/search"):
            body = json.dumps({"results": [
                {"title": "Rust", "url": "https://www.rust-lang.org/", "content": "A language."},
            ]}).encode()
            kind = "application/json"
        else:
            body = b"<html><body><h1>Notes</h1><p>Hello.</p></body></html>"
            kind = "text/html; charset=utf-8"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


async def elicit(context, params):
    return types.ElicitResult(action="accept", content={"answer": "blue"})


async def main():
    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Site)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{site.server_address[1]}"
    os.makedirs(os.path.join(WORKSPACE, ".codesmith"))
    with open(os.path.join(WORKSPACE, ".codesmith", "config.toml"), "w") as f:
        f.write(
            '[network]\ndefault = "allow"\ntrusted_cidrs = ["127.0.0.1/32"]\n\n'
            f'[web_search]\nprovider = "searxng"\nendpoint = "{base}/search"\n'
        )
    os.makedirs(os.path.join(WORKSPACE, "src"))
    with open(os.path.join(WORKSPACE, "src", "main.rs"), "w") as f:
        f.write("fn main() {\n    helper();\n}\n\nfn helper() {\n    println!(\"hi\");\n}\n")
    with open(os.path.join(WORKSPACE, "notes.txt"), "w") as f:
        f.write("".join(f"line {n}\n" for n in range(1, 301)))

    server = StdioServerParameters(command=BINARY, args=["--workspace", WORKSPACE, "mcp"], cwd=WORKSPACE)
    async with Client(server, mode="legacy", elicitation_callback=elicit) as client:
        listed = await client.list_tools()
        schemas = {tool.name: tool for tool in listed.tools}
        for tool in listed.tools:
            for which, schema in (("input", tool.input_schema), ("output", tool.output_schema)):
                check(schema is not None and schema.get("type") == "object", f"{tool.name} has an {which} object schema")
                validator = jsonschema.validators.validator_for(schema)
                validator.check_schema(schema)
                unknown = [f for f in formats(schema) if f not in STANDARD_FORMATS]
                check(not unknown, f"{tool.name} {which}Schema is valid, formats standard {unknown}")

        covered = set()

        async def call(name, arguments):
            # The SDK itself checks structuredContent against the outputSchema of a result that
            # is not an error, and raises when it does not conform.
            result = await client.call_tool(name, arguments)
            text = "\n".join(block.text for block in result.content if block.type == "text")
            check(not result.is_error, f"{name} {json.dumps(arguments)[:60]} succeeds: {text[:200]}")
            output_schema = schemas[name].output_schema
            jsonschema.validate(result.structured_content, output_schema)
            undeclared = sorted(set(result.structured_content) - set(output_schema["properties"]))
            check(not undeclared, f"{name}: every data field is declared {undeclared}")
            covered.add(name)
            return result.structured_content

        await call("read_file", {"path": "notes.txt"})
        await call("read_file", {"path": "notes.txt", "start_line": 900})
        await call("edit_file", {"path": "notes.txt", "search": "line 7\n", "replace": "seven\n"})
        await call("edit_file", {"path": "notes.txt", "search": "seven", "replace": "7", "dry_run": True})
        await call("write_file", {"path": "new/a.txt", "content": "a\n"})
        await call("read_file", {"path": "new/a.txt"})
        await call("write_file", {"path": "new/a.txt", "content": "b\n"})
        patch = "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n line 1\n-line 2\n+LINE 2\n"
        await call("apply_patch", {"patch": patch, "dry_run": True})
        await call("apply_patch", {"patch": patch})
        await call("apply_patch", {"patch": "*** Begin Patch\n*** Add File: b.txt\n+b\n*** End Patch\n"})
        for mode in ("content", "files", "count"):
            await call("grep_files", {"pattern": "line", "output_mode": mode})
        await call("grep_files", {"pattern": "nothing here at all"})
        await call("file_search", {"pattern": "*.rs"})
        await call("file_search", {"pattern": "nothing*"})
        await call("find_symbol", {"name": "helper", "include_references": True})
        await call("find_symbol", {"name": "helpr"})
        await call("outline", {"path": "src/main.rs"})
        await call("search_code", {"query": "helper println"})
        await call("list_dir", {"path": ".", "depth": 2})
        await call("exec_shell", {"command": "echo out; echo err >&2; exit 3"})
        task = await call("exec_shell", {"command": "echo started; sleep 0.3", "background": True})
        await call("task_output", {"task_id": task["task_id"]})
        await call("task_wait", {"task_id": task["task_id"], "timeout_ms": 5000})
        typed = await call("exec_shell", {"command": "cat", "background": True, "interactive": True})
        await call("task_input", {"task_id": typed["task_id"], "input": "hi\n", "wait_ms": 500})
        await call("task_cancel", {"task_id": typed["task_id"]})
        await call("history", {})
        await call("undo", {})
        await call("fetch_url", {"url": f"{base}/page"})
        await call("web_search", {"query": "rust"})
        await call("ask_user", {"question": "Which colour?", "choices": ["red", "blue"]})
        missing = sorted(set(schemas) - covered)
        check(not missing, f"every tool's results were checked {missing}")
    site.shutdown()


asyncio.run(main())
