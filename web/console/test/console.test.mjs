// The web console in a real browser (Debian's chromium, headless, driven by
// puppeteer-core) against a real scheduler and worker over loopback
// (docs/console.md). CTest runs it (label `web`) with:
//   node --test web/console/test/console.test.mjs
// and these environment variables: TASKBOARD_BIN_DIR (the built binaries),
// TASKBOARD_SOURCE_DIR (the checkout: examples/), TASKBOARD_ARTIFACTS (where
// screenshots go), CHROMIUM (default /usr/bin/chromium).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import puppeteer from "puppeteer-core";

const bin = process.env.TASKBOARD_BIN_DIR ?? "build/bin";
const source = process.env.TASKBOARD_SOURCE_DIR ?? ".";
const artifacts = process.env.TASKBOARD_ARTIFACTS ?? join(tmpdir(), "taskboard-console-artifacts");
const chromium = process.env.CHROMIUM ?? "/usr/bin/chromium";

const CLIENT = "console-client-token-0123456789";
const WORKER = "console-worker-token-0123456789";
const ADMIN = "console-admin-token-0123456789";

const APPROVAL_FLOW = `
name: console-approval
phases:
  - id: ask
    type: approval
    prompt: Ship it?
    form:
      - {name: channel, required: true}
  - id: after
    agent: writer
    task: "announced in {steps.ask.json.values.channel}"
    dependsOn: [ask]
`;

let dir;
let scheduler;
let worker;
let base;
let browser;
const logs = [];

function start(command, args, name) {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.on("data", (d) => logs.push(`[${name}] ${d}`));
  child.stderr.on("data", (d) => logs.push(`[${name}] ${d}`));
  return child;
}

async function until(what, check, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${logs.join("").slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function api(method, body, token = CLIENT) {
  const response = await fetch(`${base}/api/v1/${method}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${method}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

async function shot(page, name) {
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
}

async function signedInPage(token = CLIENT) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 1000 });
  await page.goto(`${base}/`);
  await page.waitForSelector("#token");
  await page.type("#token", token);
  await page.click("button[type=submit]");
  await page.waitForSelector("h1 ::-p-text(Runs)");
  return page;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "taskboard-test.console-"));
  writeFileSync(
    join(dir, "tokens.yaml"),
    `tokens:
  - {token: ${CLIENT}, name: alice, role: client, tenant: acme}
  - {token: ${WORKER}, name: pool, role: worker}
  - {token: ${ADMIN}, name: ops, role: admin}
`,
  );
  scheduler = start(
    join(bin, "taskboard-scheduler"),
    ["--memory", "--listen", "127.0.0.1:0", "--port-file", join(dir, "grpc.port"),
     "--http-listen", "127.0.0.1:0", "--http-port-file", join(dir, "http.port"),
     "--auth-tokens", join(dir, "tokens.yaml")],
    "scheduler",
  );
  const grpcPort = await until("the scheduler's port", () =>
    existsSync(join(dir, "grpc.port")) && readFileSync(join(dir, "grpc.port"), "utf8").trim());
  const httpPort = readFileSync(join(dir, "http.port"), "utf8").trim();
  base = `http://127.0.0.1:${httpPort}`;
  worker = start(
    join(bin, "taskboard-worker"),
    ["--scheduler", `127.0.0.1:${grpcPort}`, "--token", WORKER, "--slots", "4",
     "--worker-id", "console-worker", "--agents", join(source, "examples/agents"),
     "--workspace-root", source, "--data-dir", join(dir, "worker")],
    "worker",
  );
  await until("the worker to connect", async () => (await api("ListWorkers", {}, ADMIN)).workers?.length);
  await api("SaveFlow", { source: { text: readFileSync(join(source, "examples/flows/repo-digest.yaml"), "utf8") } });
  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
});

after(async () => {
  await browser?.close();
  for (const child of [worker, scheduler]) {
    if (child && child.exitCode === null) {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    }
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("a wrong token is refused and nothing is shown", async () => {
  const page = await browser.newPage();
  await page.goto(`${base}/`);
  await page.type("#token", "not-a-token-0123456789");
  await page.click("button[type=submit]");
  const alert = await page.waitForSelector("[role=alert]");
  assert.match(await alert.evaluate((e) => e.textContent), /unauthenticated/);
  assert.equal(await page.$("table.runs"), null);
  await shot(page, "signin-refused");
  await page.close();
});

test("submit repo-digest, watch its graph complete live, open a task with prior work and a cache hit", async () => {
  const page = await signedInPage();
  await page.waitForSelector("form.submit select");
  await page.click("form.submit input.args", { count: 3 });
  await page.keyboard.press("Backspace");
  await page.type("form.submit input.args", '{"dir": "scheduler/flow"}');
  await page.click("form.submit button[type=submit]");
  await page.waitForFunction(() => location.hash.startsWith("#/runs/run-"));
  const runId = decodeURIComponent((await page.evaluate(() => location.hash)).split("/")[2]);
  // The graph appears while the run is still going, then every node ends.
  await page.waitForSelector("svg g.node");
  await shot(page, "repo-digest-running");
  await page.waitForSelector("h1 .badge.s-completed", { timeout: 120_000 });
  await page.waitForFunction(() => document.querySelector("[data-testid=live]")?.textContent === "ended");
  const states = await page.$$eval("svg g.node", (nodes) => nodes.map((n) => n.getAttribute("data-state")));
  assert.ok(states.length >= 4, `nodes: ${states}`);
  assert.ok(states.every((s) => s === "completed" || s === "skipped"), `states: ${states}`);
  // The map's items collapse into one node with counts.
  const summarize = await page.$eval("g.node[data-node='phase:summarize']", (n) => n.getAttribute("aria-label"));
  assert.match(summarize, /items · \d+ done/);
  await page.waitForSelector("[data-testid=run-output]");
  await shot(page, "repo-digest-completed");

  // A summarizer answered from the shared cache, and the one that paid.
  const run = (await api("GetRun", { runId })).run;
  let hit = null;
  for (const task of run.tasks.filter((t) => t.phaseId === "summarize")) {
    const detail = await api("GetTask", { runId, taskId: task.taskId });
    if ((detail.toolCalls ?? []).some((c) => c.cached)) {
      hit = task.taskId;
      break;
    }
  }
  assert.ok(hit, "no summarizer was served from the cache");
  await page.evaluate((h) => (location.hash = h), `#/runs/${encodeURIComponent(runId)}/${encodeURIComponent(hit)}`);
  await page.waitForSelector("[data-testid=task-panel] [data-testid=tool-calls] td.hit");
  const paidBy = await page.$eval("[data-testid=tool-calls] td.hit + td a", (a) => a.textContent);
  assert.ok(paidBy && paidBy !== hit, `paid by: ${paidBy}`);
  await page.waitForSelector("[data-testid=task-prompt]");

  // Prior work: the reduce step was given what the summarizers found.
  const withPrior = [];
  for (const task of run.tasks) {
    const detail = await api("GetTask", { runId, taskId: task.taskId });
    if ((detail.priorWork?.observations ?? []).length > 0) withPrior.push(task.taskId);
  }
  assert.ok(withPrior.length > 0, "no task was given prior work");
  await page.evaluate((h) => (location.hash = h), `#/runs/${encodeURIComponent(runId)}/${encodeURIComponent(withPrior[0])}`);
  await page.waitForSelector("[data-testid=prior-work] li a");
  await shot(page, "task-prior-work");

  // Keyboard: Tab reaches a node, Enter opens its task.
  await page.evaluate(() => (location.hash = location.hash.split("/").slice(0, 3).join("/")));
  await page.waitForFunction(() => !document.querySelector("[data-testid=task-panel]"));
  let onNode = false;
  for (let i = 0; i < 200 && !onNode; ++i) {
    await page.keyboard.press("Tab");
    onNode = await page.evaluate(() => document.activeElement?.matches("svg g.node") ?? false);
  }
  assert.ok(onNode, "Tab never reached a graph node");
  await page.keyboard.press("Enter");
  await page.waitForSelector("[data-testid=task-panel]");
  await page.close();
});

test("cancel a waiting run from its page", async () => {
  const { runId } = await api("SubmitRun", { source: { text: APPROVAL_FLOW } });
  const page = await signedInPage();
  await page.evaluate((h) => (location.hash = h), `#/runs/${encodeURIComponent(runId)}`);
  const cancel = await page.waitForSelector("button ::-p-text(Cancel run)");
  await cancel.click();
  await page.waitForSelector("h1 .badge.s-cancelled");
  await shot(page, "run-cancelled");
  assert.equal((await api("GetRun", { runId })).run.status, "RUN_STATUS_CANCELLED");
  await page.close();
});

test("approve a pending approval with its form", async () => {
  const { runId } = await api("SubmitRun", { source: { text: APPROVAL_FLOW } });
  await until("the approval to wait", async () =>
    ((await api("ListApprovals", {})).approvals ?? []).some((a) => a.runId === runId));
  const page = await signedInPage();
  await page.click("nav a[href='#/approvals']");
  const card = await page.waitForSelector(`[data-testid=approval]:has(a[href$='${runId}'])`);
  // Approving without the required field is refused with the scheduler's reason.
  await (await card.$("button ::-p-text(Approve)")).click();
  const refusal = await card.waitForSelector("[role=alert]");
  assert.match(await refusal.evaluate((e) => e.textContent), /channel/);
  await (await card.$("input[name=channel]")).type("#releases");
  await (await card.$("input[name=comment]")).type("ship it");
  await (await card.$("button ::-p-text(Approve)")).click();
  await card.waitForSelector("[role=status]");
  await shot(page, "approval-decided");
  await until("the run to complete", async () =>
    (await api("GetRun", { runId })).run.status === "RUN_STATUS_COMPLETED");
  const task = (await api("GetTask", { runId, taskId: "ask" })).task;
  assert.equal(task.approval.decision.decidedBy, "alice");
  assert.equal(task.approval.decision.comment, "ship it");
  await page.close();
});

test("workers page shows the worker and an admin drains it", async () => {
  const page = await signedInPage(ADMIN);
  await page.click("nav a[href='#/workers']");
  await page.waitForSelector("td ::-p-text(console-worker)");
  await shot(page, "workers");
  await page.click("button[aria-label='Drain console-worker']");
  await until("the worker to drain", async () => {
    const workers = (await api("ListWorkers", {}, ADMIN)).workers ?? [];
    return workers.length === 0 || workers[0].draining;
  });
  await page.close();
});
