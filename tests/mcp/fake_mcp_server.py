#!/usr/bin/env python3
"""A small, deliberately misbehaving MCP server over stdio, for the `mcp` tests.

Usage: fake_mcp_server.py LOG_FILE [--tools N] [--page-size N]

Every message it receives is appended to LOG_FILE (one JSON line each), so a
test can see notifications/cancelled arrive. Its tools misbehave on purpose:
  echo       answers {"content":[{"type":"text","text":<message>}]}
  hang       never answers
  noisy      first sends garbage lines, a flood of notifications, an answer
             to a wrong id and a batch, then the real answer
  huge       answers with a text block of `bytes` bytes
  fail       answers with isError: true
  crash      exits with code 3 before answering
  add_tool   adds tool `extra` and sends notifications/tools/list_changed
  extra      (after add_tool) answers "extra"
--tools N adds N dummy tools (to list thousands); --page-size paginates.
"""
import json
import os
import sys

log_path = sys.argv[1]
args = sys.argv[2:]
dummy_tools = int(args[args.index("--tools") + 1]) if "--tools" in args else 0
page_size = int(args[args.index("--page-size") + 1]) if "--page-size" in args else 0

out = sys.stdout
extra = False


def send(message):
    out.write(json.dumps(message) + "\n")
    out.flush()


def log(message):
    with open(log_path, "a") as f:
        f.write(json.dumps(message) + "\n")


def schema(**properties):
    return {"type": "object", "properties": properties}


def tools():
    listed = [
        {"name": "echo", "description": "Echoes its message.",
         "inputSchema": schema(message={"type": "string"}),
         "annotations": {"readOnlyHint": True}},
        {"name": "hang", "description": "Never answers.", "inputSchema": schema()},
        {"name": "noisy", "description": "Answers through noise.", "inputSchema": schema()},
        {"name": "huge", "description": "Answers big.", "inputSchema": schema(bytes={"type": "integer"})},
        {"name": "fail", "description": "Fails.", "inputSchema": schema()},
        {"name": "crash", "description": "Exits.", "inputSchema": schema()},
        {"name": "add_tool", "description": "Adds a tool.", "inputSchema": schema()},
        {"name": "bad name!", "description": "Not a valid tool name.", "inputSchema": schema()},
    ]
    if extra:
        listed.append({"name": "extra", "description": "Added later.", "inputSchema": schema()})
    listed += [{"name": f"dummy{i}", "inputSchema": schema()} for i in range(dummy_tools)]
    return listed


def text(value):
    return {"content": [{"type": "text", "text": value}]}


def call(request):
    global extra
    name = request["params"]["name"]
    arguments = request["params"].get("arguments", {})
    rid = request["id"]
    if name == "echo":
        send({"jsonrpc": "2.0", "id": rid, "result": text(arguments.get("message", ""))})
    elif name == "hang":
        pass
    elif name == "noisy":
        out.write("this is not json\n{\"jsonrpc\":\"2.0\",\n[1,2,3]\n\n")
        for i in range(2000):
            send({"jsonrpc": "2.0", "method": "notifications/message",
                  "params": {"level": "info", "data": f"flood {i}"}})
        send({"jsonrpc": "2.0", "id": 987654, "result": text("wrong id")})
        send({"jsonrpc": "2.0", "id": "a-string-id", "result": text("wrong id")})
        send([{"jsonrpc": "2.0", "id": rid, "result": text("a batch")}])
        send({"jsonrpc": "2.0", "id": rid, "result": text("through the noise")})
    elif name == "huge":
        send({"jsonrpc": "2.0", "id": rid, "result": text("x" * int(arguments.get("bytes", 0)))})
    elif name == "fail":
        send({"jsonrpc": "2.0", "id": rid,
              "result": {"content": [{"type": "text", "text": "the thing is broken"}],
                         "isError": True}})
    elif name == "crash":
        sys.stderr.write("fake server: crashing on purpose\n")
        sys.stderr.flush()
        os._exit(3)
    elif name == "add_tool":
        extra = True
        send({"jsonrpc": "2.0", "id": rid, "result": text("added")})
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    elif name == "extra" and extra:
        send({"jsonrpc": "2.0", "id": rid, "result": text("extra")})
    else:
        send({"jsonrpc": "2.0", "id": rid,
              "error": {"code": -32602, "message": f"Unknown tool: {name}"}})


for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    message = json.loads(line)
    log(message)
    method = message.get("method")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": message["id"], "result": {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": {"name": "fake", "version": "1"}}})
        # A server may ask the client things; the worker must answer.
        send({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"})
        send({"jsonrpc": "2.0", "id": "srv-2", "method": "roots/list"})
    elif method == "tools/list":
        everything = tools()
        start = int(message.get("params", {}).get("cursor", "0") or 0)
        end = start + page_size if page_size else len(everything)
        result = {"tools": everything[start:end]}
        if end < len(everything):
            result["nextCursor"] = str(end)
        send({"jsonrpc": "2.0", "id": message["id"], "result": result})
    elif method == "tools/call":
        call(message)
