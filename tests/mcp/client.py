"""An MCP client over stdio, with the official MCP Python SDK (PyPI `mcp`), for tests/mcp.rs.

Reads a JSON spec on stdin: {"command": str, "args": [str], "calls": [{"name": str,
"arguments": object}]}. Starts the server, initializes, lists the tools, makes every call in
order, and prints one JSON object on stdout: {"server": <serverInfo>, "tools": [<Tool>],
"results": [<CallToolResult>]}, each in its wire shape (camelCase, no null members).
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def wire(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main():
    spec = json.load(sys.stdin)
    params = StdioServerParameters(command=spec["command"], args=spec["args"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            initialized = wire(await session.initialize())
            listed = await session.list_tools()
            results = []
            for call in spec["calls"]:
                result = await session.call_tool(call["name"], call["arguments"])
                results.append(wire(result))
    json.dump(
        {
            "server": initialized["serverInfo"],
            "tools": [wire(tool) for tool in listed.tools],
            "results": results,
        },
        sys.stdout,
        ensure_ascii=False,
    )


asyncio.run(main())
