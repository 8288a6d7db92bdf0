// The web console in a real browser (Debian's chromium, headless, driven by
// puppeteer-core) against a real scheduler and worker over loopback
// (docs/console.md#tests). CTest runs it as console.browser (labels e2e, web).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  accessibilityViolations,
  ADMIN,
  shot,
  source,
  startConsoleCluster,
  until,
} from "./harness.mjs";

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

// `fail-once` fails its first attempt (tests/integration/agents/script.sh);
// the retry completes.
const RETRY_FLOW = `
name: console-retry
phases:
  - id: flaky
    agent: echo
    task: fail-once recovered
    retries: 1
`;

let cluster;
let base;
let browser;
let api;
let signedInPage;

before(async () => {
  cluster = await startConsoleCluster();
  ({ base, browser, api, signedInPage } = cluster);
  await api("SaveFlow", {
    source: { text: readFileSync(join(source, "examples/flows/repo-digest.yaml"), "utf8") },
  });
});

after(async () => {
  await cluster?.stop();
});

test("a wrong token is refused and nothing is shown", async () => {
  const page = await cluster.newPage();
  await page.goto(`${base}/`);
  await page.waitForSelector("#token");
  assert.deepEqual(await accessibilityViolations(page), []);
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
  assert.deepEqual(await accessibilityViolations(page), []);
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
  assert.deepEqual(await accessibilityViolations(page), []);
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
  assert.deepEqual(await accessibilityViolations(page), []);
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

// After repo-digest, whose summarizers read files through the cache.
test("cache page shows read_file's hits and hit ratio; an admin also sees the tenant", async () => {
  await until("a read_file hit in the stats", async () =>
    ((await api("GetCacheStats", {})).rows ?? []).some((r) => r.tool === "read_file" && Number(r.hits) > 0));
  const page = await signedInPage();
  await page.click("nav a[href='#/cache']");
  const row = await page.waitForSelector("[data-testid=cache-stats] tbody tr[data-tool=read_file]");
  const hits = Number(await row.$eval("td[data-col=hits]", (td) => td.textContent));
  assert.ok(hits > 0, `read_file hits: ${hits}`);
  assert.match(await row.$eval("td[data-col=ratio]", (td) => td.textContent), /^\d+\.\d%$/);
  assert.match(await page.$eval("[data-testid=cache-stats] tfoot", (t) => t.textContent), /Total/);
  const headers = () => page.$$eval("[data-testid=cache-stats] thead th", (ths) => ths.map((th) => th.textContent));
  assert.ok(!(await headers()).includes("Tenant"), "a client token reads one tenant: no tenant column");
  assert.deepEqual(await accessibilityViolations(page), []);
  await shot(page, "cache");
  await page.close();

  const admin = await signedInPage(ADMIN);
  await admin.evaluate(() => (location.hash = "#/cache"));
  await admin.waitForSelector("[data-testid=cache-stats] thead th ::-p-text(Tenant)");
  await admin.waitForSelector("[data-testid=cache-stats] tbody td ::-p-text(acme)");
  assert.deepEqual(await accessibilityViolations(admin), []);
  await admin.close();
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

test("a run its deadline ended says which deadline", async () => {
  // The approval waits for nobody: the 1 s deadline SubmitRun gives ends the run.
  const { runId } = await api("SubmitRun", { source: { text: APPROVAL_FLOW }, runTimeoutSeconds: 1 });
  const page = await signedInPage();
  await page.evaluate((h) => (location.hash = h), `#/runs/${encodeURIComponent(runId)}`);
  await page.waitForSelector("h1 .badge.s-timed_out");
  const deadline = await page.$eval("[data-testid=run-deadline]", (dd) => dd.textContent);
  assert.equal(deadline, "deadline 1s (submit) passed");
  await page.waitForSelector("button ::-p-text(Resume run)");
  assert.deepEqual(await accessibilityViolations(page), []);
  const { run } = await api("GetRun", { runId });
  assert.equal(run.status, "RUN_STATUS_TIMED_OUT");
  assert.equal(run.deadline.source, "RUN_DEADLINE_SOURCE_SUBMIT");
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
  assert.deepEqual(await accessibilityViolations(page), []);
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

test("a task retried after a failure lists the failed attempt and why it ended", async () => {
  const { runId } = await api("SubmitRun", { source: { text: RETRY_FLOW } });
  await until("the retried run to complete", async () =>
    (await api("GetRun", { runId })).run.status === "RUN_STATUS_COMPLETED");
  const page = await signedInPage();
  await page.evaluate((h) => (location.hash = h), `#/runs/${encodeURIComponent(runId)}/flaky`);
  const failed = await page.waitForSelector("[data-testid=attempts] tbody tr[data-ended=failed]");
  const cells = await failed.$$eval("td", (tds) => tds.map((td) => td.textContent));
  assert.equal(cells[0], "1");
  assert.equal(cells[1], "console-worker");
  assert.equal(cells[4], "failed");
  assert.match(cells[5], /first attempt fails/);
  assert.match(await failed.$eval("td time", (t) => t.getAttribute("title")), /UTC$/);
  const current = await page.$eval("[data-testid=attempts] tbody tr[data-current]", (tr) =>
    [...tr.querySelectorAll("td")].map((td) => td.textContent));
  assert.equal(current[0], "2");
  assert.equal(current[4], "completed (this attempt)");
  assert.deepEqual(await accessibilityViolations(page), []);
  await shot(page, "task-attempts");
  await page.close();
});

test("workers page shows the worker and an admin drains it", async () => {
  const page = await signedInPage(ADMIN);
  await page.click("nav a[href='#/workers']");
  await page.waitForSelector("td ::-p-text(console-worker)");
  // When the scheduler last heard from it: relative, the instant in the title.
  const heartbeat = await page.waitForSelector("[data-testid=last-heartbeat] time");
  assert.match(await heartbeat.evaluate((t) => t.textContent), / ago$/);
  assert.match(await heartbeat.evaluate((t) => t.getAttribute("title")), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
  assert.deepEqual(await accessibilityViolations(page), []);
  await shot(page, "workers");
  await page.click("button[aria-label='Drain console-worker']");
  await until("the worker to drain", async () => {
    const workers = (await api("ListWorkers", {}, ADMIN)).workers ?? [];
    return workers.length === 0 || workers[0].draining;
  });
  await page.close();
});
