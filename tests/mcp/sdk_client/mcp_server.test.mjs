// Taskboard as an MCP server (docs/mcp.md#taskboard-as-an-mcp-server),
// driven by the official TypeScript SDK client over both transports:
// `taskboard mcp` (stdio) and the scheduler's POST /mcp (Streamable HTTP).
// A real scheduler (two tenants) and worker (the integration tests' `echo`
// agent) on port 0. Over each transport the client lists the tools, runs a
// saved flow and reads its output, decides an approval, and is refused
// across tenants. CTest runs it as mcp.sdk_client (labels mcp, integration).
// Environment: TASKBOARD_BIN_DIR, TASKBOARD_SOURCE_DIR.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const bin = process.env.TASKBOARD_BIN_DIR ?? "build/bin";
const source = process.env.TASKBOARD_SOURCE_DIR ?? ".";

const ALICE = "mcp-alice-token-0123456789abcdef"; // client of tenant acme
const BOB = "mcp-bob-token-0123456789abcdef0"; // client of tenant globex
const WORKER = "mcp-worker-token-0123456789abcde";
const ADMIN = "mcp-admin-token-0123456789abcdef";

const GREET = `name: greet
description: Says hello
args:
  who: {required: true, description: Whom to greet}
phases:
  - id: hello
    agent: echo
    task: echo hello {args.who}
`;

const RELEASE = `name: release
phases:
  - id: ok
    type: approval
    prompt: Ship it?
  - id: ship
    agent: echo
    task: echo shipped
`;

const logs = [];
const children = [];
let dir;
let grpcPort;
let base;

async function until(what, check, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}\n${logs.join("").slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

function start(command, args, name) {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.on("data", (d) => logs.push(`[${name}] ${d}`));
  child.stderr.on("data", (d) => logs.push(`[${name}] ${d}`));
  children.unshift(child);
  return child;
}

async function api(method, body, token) {
  const response = await fetch(`${base}/api/v1/${method}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${method}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "taskboard-test.mcp-"));
  writeFileSync(
    join(dir, "tokens.yaml"),
    `tokens:
  - {token: ${ALICE}, name: alice, role: client, tenant: acme}
  - {token: ${BOB}, name: bob, role: client, tenant: globex}
  - {token: ${WORKER}, name: pool, role: worker}
  - {token: ${ADMIN}, name: ops, role: admin}
`,
  );
  start(
    join(bin, "taskboard-scheduler"),
    ["--memory", "--listen", "127.0.0.1:0", "--port-file", join(dir, "grpc.port"),
     "--http-listen", "127.0.0.1:0", "--http-port-file", join(dir, "http.port"),
     "--auth-tokens", join(dir, "tokens.yaml")],
    "scheduler",
  );
  grpcPort = await until(
    "the scheduler's port",
    () => existsSync(join(dir, "grpc.port")) && readFileSync(join(dir, "grpc.port"), "utf8").trim(),
  );
  base = `http://127.0.0.1:${readFileSync(join(dir, "http.port"), "utf8").trim()}`;
  const agents = join(dir, "agents");
  mkdirSync(agents);
  for (const file of ["echo.yaml", "script.sh"]) {
    copyFileSync(join(source, "tests/integration/agents", file), join(agents, file));
  }
  start(
    join(bin, "taskboard-worker"),
    ["--scheduler", `127.0.0.1:${grpcPort}`, "--token", WORKER, "--slots", "2",
     "--worker-id", "mcp-worker", "--agents", agents, "--workspace-root", source,
     "--data-dir", join(dir, "worker")],
    "worker",
  );
  await until("the worker to connect", async () => (await api("ListWorkers", {}, ADMIN)).workers?.length);
  await api("SaveFlow", { source: { text: GREET } }, ALICE);
  await api("SaveFlow", { source: { text: RELEASE } }, ALICE);
});

after(async () => {
  for (const child of children) {
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    }
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// The two ways a client reaches Taskboard, each with a token's rights.
const transports = {
  stdio: (token) =>
    new StdioClientTransport({
      command: join(bin, "taskboard"),
      args: ["mcp", "--scheduler", `127.0.0.1:${grpcPort}`, "--token", token],
      stderr: "pipe",
    }),
  http: (token) =>
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
};

async function connect(kind, token) {
  const client = new Client({ name: "taskboard-mcp-test", version: "1.0.0" });
  const transport = transports[kind](token);
  transport.stderr?.on("data", (d) => logs.push(`[taskboard mcp] ${d}`));
  await client.connect(transport);
  return client;
}

async function call(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  assert.equal(result.isError, false, `${name}: ${JSON.stringify(result.content)}`);
  assert.equal(result.content[0].type, "text");
  assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
  return result.structuredContent;
}

for (const kind of Object.keys(transports)) {
  describe(`over ${kind}`, () => {
    let alice;
    let bob;
    before(async () => {
      alice = await connect(kind, ALICE);
      bob = await connect(kind, BOB);
    });
    after(async () => {
      await alice?.close();
      await bob?.close();
    });

    test("the server introduces itself and lists its tools with their schemas", async () => {
      assert.equal(alice.getServerVersion().name, "taskboard");
      const { tools } = await alice.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ["list_flows", "describe_flow", "run_flow", "get_run", "cancel_run", "list_approvals",
         "decide_approval"],
      );
      for (const tool of tools) assert.equal(tool.inputSchema.type, "object", tool.name);
      const runFlow = tools.find((t) => t.name === "run_flow");
      assert.deepEqual(runFlow.inputSchema.required, ["name"]);
    });

    test("a saved flow is listed, described, run with args, and its output read", async () => {
      const { flows } = await call(alice, "list_flows", {});
      const greet = flows.find((f) => f.name === "greet");
      assert.ok(greet, JSON.stringify(flows));
      assert.deepEqual(greet.args.map((a) => [a.name, a.required]), [["who", true]]);
      const described = await call(alice, "describe_flow", { name: "greet" });
      assert.match(described.source, /echo hello \{args.who\}/);

      const finished = await call(alice, "run_flow", {
        name: "greet",
        args: { who: kind },
        wait_seconds: 45,
      });
      assert.equal(finished.status, "completed", JSON.stringify(finished));
      assert.equal(finished.output, `hello ${kind}\n`);
      const read = await call(alice, "get_run", { run_id: finished.run_id });
      assert.equal(read.output, `hello ${kind}\n`);
    });

    test("an approval is listed and decided, and the run goes on", async () => {
      const { run_id } = await call(alice, "run_flow", { name: "release" });
      const pending = await until("the approval to wait", async () => {
        const { approvals } = await call(alice, "list_approvals", {});
        return approvals.find((a) => a.run_id === run_id);
      });
      assert.equal(pending.step_id, "ok");
      assert.equal(pending.prompt, "Ship it?");
      const decided = await call(alice, "decide_approval", {
        run_id,
        step_id: "ok",
        decision: "approve",
        comment: `via ${kind}`,
      });
      assert.equal(decided.decided, true);
      const done = await until("the run to end", async () => {
        const run = await call(alice, "get_run", { run_id });
        return run.finished && run;
      });
      assert.equal(done.status, "completed", JSON.stringify(done));
      assert.equal(done.output, "shipped\n");
    });

    test("another tenant's flows, runs and approvals are refused", async () => {
      const { flows } = await call(bob, "list_flows", {});
      assert.equal(flows.find((f) => f.name === "greet"), undefined);
      const notTheirs = await bob.callTool({ name: "run_flow", arguments: { name: "greet" } });
      assert.equal(notTheirs.isError, true);
      assert.match(notTheirs.content[0].text, /run_flow failed: NOT_FOUND/);

      const { run_id } = await call(alice, "run_flow", { name: "release" });
      await until("the approval to wait", async () => {
        const { approvals } = await call(alice, "list_approvals", {});
        return approvals.some((a) => a.run_id === run_id);
      });
      const { approvals } = await call(bob, "list_approvals", {});
      assert.equal(approvals.some((a) => a.run_id === run_id), false);
      const read = await bob.callTool({ name: "get_run", arguments: { run_id } });
      assert.equal(read.isError, true);
      assert.match(read.content[0].text, /get_run failed: (NOT_FOUND|PERMISSION_DENIED)/);
      const decide = await bob.callTool({
        name: "decide_approval",
        arguments: { run_id, step_id: "ok", decision: "approve" },
      });
      assert.equal(decide.isError, true);
      assert.match(decide.content[0].text, /decide_approval failed: (NOT_FOUND|PERMISSION_DENIED)/);
      // Still waiting: bob's decision did not count.
      const still = await call(alice, "get_run", { run_id });
      assert.equal(still.finished, false);
      await call(alice, "cancel_run", { run_id, reason: "test over" });
    });

    test("bad arguments and unknown tools are errors the client can read", async () => {
      const bad = await alice.callTool({ name: "get_run", arguments: { run: "x" } });
      assert.equal(bad.isError, true);
      assert.match(bad.content[0].text, /'run_id' is required/);
      await assert.rejects(alice.callTool({ name: "no_such_tool", arguments: {} }), /Unknown tool/);
    });
  });
}

test("over http, a token the scheduler does not know cannot connect", async () => {
  await assert.rejects(connect("http", "not-a-token-0123456789abcdefghij"));
});
