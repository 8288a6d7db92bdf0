#!/usr/bin/env python3
"""A small, deliberately misbehaving Streamable HTTP MCP server, for the `mcp` tests.

Usage: fake_mcp_http_server.py PORT_FILE LOG_FILE

Listens on 127.0.0.1, port 0, and writes the port to PORT_FILE. Every message
it receives is appended to LOG_FILE as {"http": METHOD, "headers": {...},
"message": ...}, so a test can see headers, sessions and notifications/cancelled
arrive. Its tools misbehave on purpose:
  echo          answers {"content":[{"type":"text","text":<message>}]} as JSON
  sse_echo      answers in an event stream, after a priming event, a progress
                notification and a ping request of its own
  hang          never answers
  garbage       an event stream of garbage, other event types and wrong ids,
                then the real answer
  wrong_ids     a JSON answer to another id only
  huge          answers with a text block of `bytes` bytes (as JSON, or as an
                event when `sse` is true)
  forget        answers, then forgets every session (the next message gets 404)
  add_tool      adds tool `extra` and sends notifications/tools/list_changed
                on the GET stream
  extra         (after add_tool) answers "extra"
"""
import json
import os
import queue
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port_file, log_path = sys.argv[1], sys.argv[2]
lock = threading.Lock()
sessions = set()
extra = False
get_streams = []  # queues of the open GET streams


def log(entry):
    with lock, open(log_path, "a") as f:
        f.write(json.dumps(entry) + "\n")


def schema(**properties):
    return {"type": "object", "properties": properties}


def tools():
    listed = [{"name": "echo", "description": "Echoes its message.",
               "inputSchema": schema(message={"type": "string"})}] + [
        {"name": n, "description": n, "inputSchema": schema()}
        for n in ("sse_echo", "hang", "garbage", "wrong_ids", "forget", "add_tool")
    ] + [{"name": "huge", "description": "Answers big.",
          "inputSchema": schema(bytes={"type": "integer"}, sse={"type": "boolean"})}]
    if extra:
        listed.append({"name": "extra", "description": "Added later.", "inputSchema": schema()})
    return listed


def text(value):
    return {"content": [{"type": "text", "text": value}]}


def answer(rid, result):
    return {"jsonrpc": "2.0", "id": rid, "result": result}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def headers_seen(self):
        return {k.lower(): v for k, v in self.headers.items()}

    def reply(self, status, body=b"", content_type="application/json", extra_headers=None):
        self.send_response(status)
        if body:
            self.send_header("Content-Type", content_type)
        for k, v in (extra_headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)

    def json(self, message, extra_headers=None):
        self.reply(200, json.dumps(message).encode(), extra_headers=extra_headers)

    def start_stream(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def event(self, data, event=None, eid=None):
        out = ""
        if eid is not None:
            out += f"id: {eid}\n"
        if event is not None:
            out += f"event: {event}\n"
        out += "".join(f"data: {line}\n" for line in data.split("\n")) + "\n"
        self.wfile.write(out.encode())
        self.wfile.flush()

    def session_ok(self):
        sid = self.headers.get("Mcp-Session-Id")
        with lock:
            known = sid in sessions
        if not known:
            self.reply(404, json.dumps({"jsonrpc": "2.0", "id": None, "error": {
                "code": -32001, "message": "Session not found"}}).encode())
        return known

    def do_DELETE(self):
        log({"http": "DELETE", "headers": self.headers_seen()})
        self.reply(200)

    def do_GET(self):
        log({"http": "GET", "headers": self.headers_seen()})
        if not self.session_ok():
            return
        q = queue.Queue()
        with lock:
            get_streams.append(q)
        self.start_stream()
        try:
            while True:
                try:
                    message = q.get(timeout=0.5)
                    self.event(json.dumps(message))
                except queue.Empty:
                    self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
        except OSError:
            pass
        finally:
            with lock:
                get_streams.remove(q)

    def do_POST(self):
        global extra
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        message = json.loads(body)
        log({"http": "POST", "headers": self.headers_seen(), "message": message})
        method = message.get("method")
        if method == "initialize":
            sid = str(uuid.uuid4())
            with lock:
                sessions.add(sid)
            return self.json(answer(message["id"], {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "fake-http", "version": "1"}}),
                extra_headers={"Mcp-Session-Id": sid})
        if not self.session_ok():
            return
        if "id" not in message or "method" not in message:  # notifications, answers
            return self.reply(202)
        rid = message["id"]
        if method == "tools/list":
            return self.json(answer(rid, {"tools": tools()}))
        if method != "tools/call":
            return self.json({"jsonrpc": "2.0", "id": rid,
                              "error": {"code": -32601, "message": "no such method"}})
        name = message["params"]["name"]
        arguments = message["params"].get("arguments", {})
        if name == "echo":
            return self.json(answer(rid, text(arguments.get("message", ""))))
        if name == "sse_echo":
            self.start_stream()
            self.event("", eid="prime-1")
            self.event(json.dumps({"jsonrpc": "2.0", "method": "notifications/progress",
                                   "params": {"progressToken": 1, "progress": 1}}))
            self.event(json.dumps({"jsonrpc": "2.0", "id": "srv-ping", "method": "ping"}))
            return self.event(json.dumps(answer(rid, text("streamed"))), event="message")
        if name == "hang":
            time.sleep(60)
            return
        if name == "garbage":
            self.start_stream()
            self.event("this is not json")
            self.event(json.dumps(answer(rid, text("wrong event type"))), event="other")
            self.event(json.dumps(answer(987654, text("wrong id"))))
            self.event(json.dumps([answer(rid, text("a batch"))]))
            self.wfile.write(b"data: {\"jsonrpc\":\r\n\r\n: comment\n\n")
            return self.event(json.dumps(answer(rid, text("through the garbage"))))
        if name == "wrong_ids":
            return self.json(answer(rid + 1000, text("not yours")))
        if name == "huge":
            result = answer(rid, text("x" * int(arguments.get("bytes", 0))))
            if arguments.get("sse"):
                self.start_stream()
                return self.event(json.dumps(result))
            return self.json(result)
        if name == "forget":
            self.json(answer(rid, text("forgotten")))
            with lock:
                sessions.clear()
            return
        if name == "add_tool":
            extra = True
            self.json(answer(rid, text("added")))
            with lock:
                for q in get_streams:
                    q.put({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            return
        if name == "extra" and extra:
            return self.json(answer(rid, text("extra")))
        return self.json({"jsonrpc": "2.0", "id": rid,
                          "error": {"code": -32602, "message": f"Unknown tool: {name}"}})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
