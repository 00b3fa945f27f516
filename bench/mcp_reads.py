"""1,000 sequential read_file calls over one MCP session (the official Python SDK, and a bare
JSON-RPC loop over the same pipes) against 1,000 `codesmith read` processes, plus the server's
idle memory. Usage: python mcp_reads.py BINARY WORKSPACE [CALLS]"""

import asyncio
import json
import subprocess
import sys
import time

from mcp import Client, StdioServerParameters

BINARY, WORKSPACE = sys.argv[1:3]
CALLS = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
ARGS = {"path": "small.txt"}


def cli_reads():
    start = time.perf_counter()
    for _ in range(CALLS):
        out = subprocess.run([BINARY, "--workspace", WORKSPACE, "read", "small.txt"], capture_output=True)
        assert out.returncode == 0
    return time.perf_counter() - start


async def sdk_reads(mode):
    server = StdioServerParameters(command=BINARY, args=["--workspace", WORKSPACE, "mcp"], cwd=WORKSPACE)
    async with Client(server, mode=mode) as client:
        await client.call_tool("read_file", ARGS)
        start = time.perf_counter()
        for _ in range(CALLS):
            result = await client.call_tool("read_file", ARGS)
            assert not result.is_error
        return time.perf_counter() - start


def bare_reads():
    """The server alone: JSON-RPC lines over pipes, no SDK. Returns (seconds, idle RSS in KiB)."""
    proc = subprocess.Popen([BINARY, "--workspace", WORKSPACE, "mcp"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, bufsize=1)

    def rpc(i, method, params):
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
        proc.stdin.flush()
        return json.loads(proc.stdout.readline())

    rpc(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}})
    rpc(1, "tools/call", {"name": "read_file", "arguments": ARGS})
    time.sleep(0.2)
    with open(f"/proc/{proc.pid}/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    start = time.perf_counter()
    for i in range(CALLS):
        assert rpc(i + 2, "tools/call", {"name": "read_file", "arguments": ARGS})["result"]["isError"] is False
    elapsed = time.perf_counter() - start
    proc.stdin.close()
    proc.wait()
    return elapsed, rss


cli = cli_reads()
legacy = asyncio.run(sdk_reads("legacy"))
modern = asyncio.run(sdk_reads("2026-07-28"))
bare, rss = bare_reads()
print(f"{CALLS} reads: CLI processes {cli:.2f} s ({cli / CALLS * 1e3:.2f} ms/call)")
print(f"  MCP, Python SDK, 2025-11-25: {legacy:.2f} s ({legacy / CALLS * 1e3:.2f} ms/call)")
print(f"  MCP, Python SDK, 2026-07-28: {modern:.2f} s ({modern / CALLS * 1e3:.2f} ms/call)")
print(f"  MCP, bare JSON-RPC loop:     {bare:.2f} s ({bare / CALLS * 1e3:.3f} ms/call)")
print(f"ratio CLI / MCP via SDK (2025-11-25): {cli / legacy:.2f}x")
print(f"ratio CLI / MCP via SDK (2026-07-28): {cli / modern:.2f}x")
print(f"ratio CLI / MCP bare loop: {cli / bare:.2f}x")
print(f"server idle RSS after initialize and one read: {rss} KiB")
