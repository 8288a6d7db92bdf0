// The console's schedules, triggers, usage and audit pages and a run's trace link, in a
// real browser against a real scheduler and worker (docs/console.md#tests).
// The worker's one agent is an llm agent talking to tools/fake-llm, which
// answers every call with 10 input and 5 output tokens, so runs bill real
// usage; the scheduler exports its spans to a receiver in this test (every
// run is sampled) and links them with --trace-url-template. CTest runs it as
// console.pages (labels e2e, web).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  accessibilityViolations,
  bin,
  shot,
  startConsoleCluster,
  until,
  ADMIN,
  WORKER,
} from "./harness.mjs";

const TRACE_TEMPLATE = "https://tempo.example/trace/{trace_id}?from=console";

const FAKE_LLM_SCRIPT = `rules:
  - name: every-call
    respond:
      content: done
      usage: {prompt_tokens: 10, completion_tokens: 5}
`;

// $2 and $10 per million tokens: one call costs $0.00007.
const writerAgent = (baseUrl) => `---
name: writer
type: llm
model: fake-model
baseUrl: ${baseUrl}
maxAttempts: 1
pricing:
  fake-model: {inputPerMtok: 2, outputPerMtok: 10}
---
You write one line.
`;

const USAGE_FLOW = `
name: console-usage
budget: {tokens: 100000, usd: 1}
phases:
  - id: write
    agent: writer
    task: write one line
`;

// Fires on 1 January only: nothing fires by itself while the test runs.
const SCHEDULE = `
name: console-yearly
flow: console-usage
spec:
  cron: "0 0 1 1 *"
overlap: allow_all
`;

// A GitHub-style trigger of the usage flow: signed deliveries, deduplicated
// by X-GitHub-Delivery (docs/schedules.md#event-triggers).
const TRIGGER_SECRET = "console-trigger-secret-0123456789";
const TRIGGER = `
name: console-pr
event: console-github
flow: console-usage
auth:
  hmacSecret: "${TRIGGER_SECRET}"
dedupe: {header: X-GitHub-Delivery}
`;

// acme's day budget (the client token's tenant) and globex's month budget,
// which acme's page must not show. Large enough for every call here (a call
// reserves its most, 1,024 output tokens by default).
const LLM_LIMITS = `tenants:
  acme:
    budget: {usd: 5, tokens: 20000, period: day}
  globex:
    budget: {tokens: 1000000, period: month}
`;

const APPROVAL_FLOW = `
name: console-audit
phases:
  - id: ask
    type: approval
    prompt: Ship it?
`;

let cluster;
let api;
let signedInPage;
let fakeLlm;
let receiver;
let spansReceived = 0;
let dir;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "taskboard-test.console-pages-"));
  writeFileSync(join(dir, "script.yaml"), FAKE_LLM_SCRIPT);
  const logs = [];
  fakeLlm = spawn(join(bin, "fake-llm"), ["--script", join(dir, "script.yaml"), "--listen", "127.0.0.1:0",
    "--port-file", join(dir, "llm.port")], { stdio: ["ignore", "pipe", "pipe"] });
  fakeLlm.stdout.on("data", (d) => logs.push(`[fake-llm] ${d}`));
  fakeLlm.stderr.on("data", (d) => logs.push(`[fake-llm] ${d}`));
  const llmPort = await until(
    "fake-llm's port",
    () => existsSync(join(dir, "llm.port")) && readFileSync(join(dir, "llm.port"), "utf8").trim(),
    30_000,
    logs,
  );
  const agents = join(dir, "agents");
  mkdirSync(agents);
  writeFileSync(join(agents, "writer.md"), writerAgent(`http://127.0.0.1:${llmPort}/v1`));
  writeFileSync(join(dir, "llm-limits.yaml"), LLM_LIMITS);

  // An OTLP/HTTP receiver that takes every export: the scheduler traces
  // runs only when it has somewhere to send their spans.
  receiver = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      spansReceived += 1;
      response.writeHead(200, { "Content-Type": "application/x-protobuf" });
      response.end();
    });
  });
  await new Promise((r) => receiver.listen(0, "127.0.0.1", r));
  cluster = await startConsoleCluster({
    agents,
    schedulerArgs: [
      "--otlp-endpoint", `http://127.0.0.1:${receiver.address().port}`,
      "--trace-url-template", TRACE_TEMPLATE,
      "--llm-limits", join(dir, "llm-limits.yaml"),
    ],
  });
  ({ api, signedInPage } = cluster);
  await api("SaveFlow", { source: { text: USAGE_FLOW } });
});

after(async () => {
  await cluster?.stop();
  if (fakeLlm && fakeLlm.exitCode === null) {
    fakeLlm.kill("SIGTERM");
    await new Promise((r) => fakeLlm.once("exit", r));
  }
  await new Promise((r) => (receiver ? receiver.close(r) : r()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// Waits until the schedule's badge says `state`; on a timeout, says what the
// card showed (an action's refusal among it).
async function stateIs(page, state) {
  const card = "[data-testid=schedule][data-name=console-yearly]";
  try {
    await page.waitForFunction(
      (card, state) => document.querySelector(`${card} [data-testid=schedule-state]`)?.textContent === state,
      { timeout: 15_000 },
      card,
      state,
    );
  } catch (e) {
    const text = await page.$eval(card, (c) => c.textContent).catch(() => "(no card)");
    throw new Error(`the schedule never showed ${state}: ${text}`);
  }
}

// Sets a filter field and lets it apply (the filters apply on change).
async function setFilter(page, name, value) {
  await page.$eval(`input[name=${name}]`, (input, value) => {
    input.value = value;
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }, value);
}

// Waits until the audit rows' methods are `expected` (joined with ","),
// saying what they were on a timeout.
async function auditMethodsAre(page, check, what) {
  const methods = () =>
    page.$$eval("[data-testid=audit] tbody tr", (trs) => trs.map((tr) => `${tr.dataset.method} ${tr.querySelector("td[data-col=target]")?.textContent}`));
  try {
    await page.waitForFunction(check, { timeout: 15_000 });
  } catch (e) {
    throw new Error(`the audit rows never were ${what}: ${JSON.stringify(await methods())}`);
  }
}

const ended = (status) => !["RUN_STATUS_PENDING", "RUN_STATUS_RUNNING"].includes(status);

test("schedules page: next times, pause and unpause with a note, trigger now and follow the run to its trace", async () => {
  await api("CreateSchedule", { source: SCHEDULE });
  const page = await signedInPage();
  await page.click("nav a[href='#/schedules']");
  const card = await page.waitForSelector("[data-testid=schedule][data-name=console-yearly]");
  // Its next fire times: 1 January at midnight UTC, the first one ahead.
  const next = await card.$$eval("[data-testid=next-times] time", (ts) => ts.map((t) => t.getAttribute("datetime")));
  assert.equal(next.length, 3);
  const expected = (await api("DescribeSchedule", { name: "console-yearly" })).schedule.nextFireTimes.slice(0, 3);
  assert.deepEqual(next, expected);
  assert.ok(next.every((t) => /-01-01T00:00:00Z$/.test(t)) && Date.parse(next[0]) > Date.now(), `next: ${next}`);
  assert.equal(await card.$eval("[data-testid=schedule-state]", (e) => e.textContent), "active");
  assert.deepEqual(await accessibilityViolations(page), []);

  // Pause with a note: the card says paused and why, and so does the API.
  await (await card.$("input[name=note]")).type("freeze for the release");
  await (await card.$("button ::-p-text(Pause)")).click();
  await stateIs(page, "paused");
  assert.equal(await card.$eval("[data-testid=schedule-note]", (e) => e.textContent), "freeze for the release");
  let described = (await api("DescribeSchedule", { name: "console-yearly" })).schedule;
  assert.equal(described.paused, true);
  assert.equal(described.note, "freeze for the release");
  await shot(page, "schedule-paused");

  await (await card.$("input[name=note]")).type("release shipped");
  await (await card.$("button ::-p-text(Unpause)")).click();
  await stateIs(page, "active");
  described = (await api("DescribeSchedule", { name: "console-yearly" })).schedule;
  assert.equal(described.paused ?? false, false);
  assert.equal(described.note, "release shipped");

  // Trigger now: the run it started is linked, in the answer and in the
  // recent actions.
  await (await card.$("button ::-p-text(Trigger now)")).click();
  const started = await card.waitForSelector("[data-testid=triggered] a");
  const runId = await started.evaluate((a) => a.textContent);
  assert.match(runId, /^run-/);
  await card.waitForSelector(`[data-testid=recent-actions] tr[data-action=start] a[href='#/runs/${encodeURIComponent(runId)}']`);
  assert.deepEqual(await accessibilityViolations(page), []);
  await shot(page, "schedule-triggered");

  await started.click();
  await page.waitForFunction((id) => location.hash === `#/runs/${encodeURIComponent(id)}`, {}, runId);
  await page.waitForSelector("h1 .badge.s-completed", { timeout: 60_000 });
  // The run's trace, at the URL the scheduler's template makes of its id.
  const run = (await api("GetRun", { runId })).run;
  assert.match(run.traceId, /^[0-9a-f]{32}$/);
  const link = await page.waitForSelector("[data-testid=trace-link]");
  assert.equal(await link.evaluate((a) => a.getAttribute("href")), TRACE_TEMPLATE.replace("{trace_id}", run.traceId));
  assert.equal(await link.evaluate((a) => a.textContent), run.traceId);
  assert.equal(await link.evaluate((a) => a.getAttribute("rel")), "noopener noreferrer");
  await until("the run's spans to be exported", () => spansReceived > 0);
  await shot(page, "run-trace-link");
  await page.close();
});

test("triggers page: a signed event's run, its redelivery deduped and a forged signature refused, each with why", async () => {
  await api("CreateTrigger", { source: TRIGGER });
  const body = JSON.stringify({ action: "opened" });
  const sign = (secret) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
  const deliver = (signature, delivery) =>
    fetch(`${cluster.base}/api/v1/events/console-github`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "X-Hub-Signature-256": signature,
        "X-GitHub-Delivery": delivery,
      },
      body,
    });
  const first = await deliver(sign(TRIGGER_SECRET), "delivery-1");
  assert.equal(first.status, 200, await first.clone().text());
  const runId = (await first.json()).outcomes[0].delivery.runId;
  assert.match(runId, /^run-/);
  const again = await deliver(sign(TRIGGER_SECRET), "delivery-1");
  assert.equal(again.status, 200);
  assert.equal((await again.json()).outcomes[0].delivery.outcome, "deduped");
  const forged = await deliver(sign("not-the-secret-0123456789"), "delivery-2");
  assert.equal(forged.status, 401);
  const { deliveries } = await api("ListTriggerDeliveries", { name: "console-pr" });
  assert.deepEqual(deliveries.map((d) => d.outcome), ["refused", "deduped", "accepted"]);

  const page = await signedInPage();
  await page.click("nav a[href='#/triggers']");
  const card = await page.waitForSelector("[data-testid=trigger][data-name=console-pr]");
  const run = `a[href='#/runs/${encodeURIComponent(runId)}']`;
  await card.waitForSelector(`[data-testid=deliveries] tr[data-outcome=accepted] ${run}`);
  await card.waitForSelector(`[data-testid=deliveries] tr[data-outcome=deduped] ${run}`);
  const refused = await card.waitForSelector("[data-testid=deliveries] tr[data-outcome=refused]");
  // The reason the page gives is the scheduler's.
  const why = await refused.$eval("td:nth-child(3)", (td) => td.textContent);
  assert.equal(why, deliveries[0].reason);
  assert.ok(why.length > 0);
  assert.equal(
    await card.$eval("[data-testid=trigger-counts]", (e) => e.textContent.replace(/\s+/g, " ").trim()),
    "accepted 1, deduped 1, filtered 0, refused 1",
  );
  assert.equal(await card.$eval("[data-testid=trigger-state]", (e) => e.textContent), "active");
  assert.deepEqual(await accessibilityViolations(page), []);
  await shot(page, "triggers");
  await page.close();
});

test("usage page: tokens and cost per tenant and model, and per run against its budget, as GetUsage bills them", async () => {
  const { runId } = await api("SubmitRun", { saved: { name: "console-usage" } });
  // Every run of the tenant ended: nothing bills while the page is compared.
  await until("every run to end", async () =>
    ((await api("ListRuns", {})).runs ?? []).every((r) => ended(r.status)), 60_000);
  assert.equal((await api("GetRun", { runId })).run.status, "RUN_STATUS_COMPLETED");
  const rows = (await api("GetUsage", {})).rows ?? [];
  const sum = (f) => rows.reduce((s, r) => s + f(r), 0);
  const input = sum((r) => Number(r.usage?.inputTokens ?? 0));
  const output = sum((r) => Number(r.usage?.outputTokens ?? 0));
  const cost = sum((r) => Number(r.usage?.costUsd ?? 0));
  const requests = sum((r) => Number(r.requests ?? 0));
  // The schedule's triggered run and this one: two calls at least.
  assert.ok(requests >= 2 && input === 10 * requests && output === 5 * requests, JSON.stringify(rows));

  const page = await signedInPage();
  await page.click("nav a[href='#/usage']");
  const line = await page.waitForSelector("[data-testid=usage] tbody tr[data-key='acme/fake-model']");
  const cell = (row, col) => row.$eval(`td[data-col=${col}]`, (td) => td.textContent);
  const total = await page.$("[data-testid=usage-total]");
  for (const row of [line, total]) {
    assert.equal(await cell(row, "requests"), requests.toLocaleString("en-US"));
    assert.equal(await cell(row, "input"), input.toLocaleString("en-US"));
    assert.equal(await cell(row, "output"), output.toLocaleString("en-US"));
    assert.equal(await cell(row, "cost"), `$${cost.toFixed(4)}`);
  }

  // This run: 15 tokens billed of its 100,000, $0.00007 of its $1. (The
  // budget must hold a call's most, max tokens included, or the call waits.)
  const run = (await api("GetRun", { runId })).run;
  assert.equal(Number(run.billed.inputTokens) + Number(run.billed.outputTokens), 15);
  const runRow = await page.waitForSelector(`[data-testid=run-usage] tr[data-run='${runId}']`);
  assert.equal(await cell(runRow, "tokens"), "15");
  assert.equal(await cell(runRow, "cost"), `$${run.billed.costUsd.toFixed(4)}`);
  assert.equal(await cell(runRow, "budget"), "100,000 tokens, $1.00");
  assert.equal(await cell(runRow, "left"), `99,985 tokens, $${(1 - run.billed.costUsd).toFixed(4)}`);

  // acme's day budget: what GetUsage's rows of today add up to, of its
  // limits, with the share used; globex's budget is not acme's to see.
  const today = new Date().toISOString().slice(0, 10);
  const todays = rows.filter((r) => r.tenant === "acme" && r.day === today);
  const todayTokens = todays.reduce((s, r) => s + Number(r.usage?.inputTokens ?? 0) + Number(r.usage?.outputTokens ?? 0), 0);
  const todayCost = todays.reduce((s, r) => s + Number(r.usage?.costUsd ?? 0), 0);
  assert.ok(todayTokens >= 30, JSON.stringify(rows));
  const budgets = (await api("GetUsage", {})).budgets ?? [];
  assert.deepEqual(budgets.map((b) => b.tenant), ["acme"]);
  assert.equal(Number(budgets[0].billedTokens), todayTokens);
  assert.ok(Math.abs(budgets[0].billedUsd - todayCost) < 1e-9, JSON.stringify(budgets));
  const panel = await page.waitForSelector("[data-testid=tenant-budgets] article[data-tenant=acme]");
  assert.equal(await page.$("[data-testid=tenant-budgets] article[data-tenant=globex]"), null);
  const part = (col, name) => panel.$eval(`[data-col=${col}] [data-part=${name}]`, (e) => e.textContent);
  assert.equal(await panel.$eval("[data-col=period]", (e) => e.textContent), `Today (${today}, UTC)`);
  assert.equal(await part("tokens", "billed"), todayTokens.toLocaleString("en-US"));
  assert.equal(await part("tokens", "limit"), "20,000");
  const tokenShare = Math.floor((todayTokens / 20000) * 1000) / 10;
  assert.equal(await part("tokens", "share"), `${tokenShare.toFixed(1)}%`);
  assert.equal(await part("cost", "billed"), `$${todayCost.toFixed(4)}`);
  assert.equal(await part("cost", "limit"), "$5.00");
  assert.equal(
    await panel.$eval("[data-col=tokens] [role=progressbar]", (e) => e.getAttribute("aria-valuenow")),
    String(tokenShare),
  );
  // An admin reads both tenants' budgets.
  const all = (await api("GetUsage", {}, ADMIN)).budgets ?? [];
  assert.deepEqual(all.map((b) => `${b.tenant}/${b.period}`), ["acme/day", "globex/month"]);

  // Grouped by model instead: one line, the same total.
  await page.select("select[name=by]", "model");
  const byModel = await page.waitForSelector("[data-testid=usage] tbody tr[data-key='fake-model']");
  assert.equal(await cell(byModel, "input"), input.toLocaleString("en-US"));
  // A range that ended before today holds none of it.
  await page.$eval("input[name=since]", (i) => {
    i.value = "2020-01-01";
    i.dispatchEvent(new Event("change", { bubbles: true }));
  });
  await page.$eval("input[name=until]", (i) => {
    i.value = "2020-01-31";
    i.dispatchEvent(new Event("change", { bubbles: true }));
  });
  await page.waitForSelector("p.hint ::-p-text(No LLM usage in this range.)");
  await page.waitForSelector("p.hint ::-p-text(No run started in this range.)");
  assert.deepEqual(await accessibilityViolations(page), []);
  await page.close();
});

test("audit page: a submitted and a cancelled run are both recorded; filtering by method keeps the cancel", async () => {
  const { runId } = await api("SubmitRun", { source: { text: APPROVAL_FLOW } });
  await api("CancelRun", { runId, reason: "not today" });
  const page = await signedInPage();
  await page.click("nav a[href='#/audit']");
  const cancel = await page.waitForSelector(
    `[data-testid=audit] tbody tr[data-method='Scheduler.CancelRun']:has(a[href='#/runs/${encodeURIComponent(runId)}'])`);
  await page.waitForSelector(
    `[data-testid=audit] tbody tr[data-method='Scheduler.SubmitRun']:has(a[href='#/runs/${encodeURIComponent(runId)}'])`);
  const cells = await cancel.$$eval("td", (tds) => tds.map((td) => td.textContent));
  assert.match(cells[1], /^alice \(client\)$/);
  assert.equal(cells[4], "ok");
  assert.match(cells[5], /reason=not today/);
  assert.deepEqual(await accessibilityViolations(page), []);
  await shot(page, "audit");

  await setFilter(page, "method", "CancelRun");
  await auditMethodsAre(page, () => {
    const methods = [...document.querySelectorAll("[data-testid=audit] tbody tr")].map((tr) => tr.dataset.method);
    return methods.length > 0 && methods.every((m) => m === "Scheduler.CancelRun");
  }, "cancels only");
  await page.waitForSelector(`[data-testid=audit] tbody tr a[href='#/runs/${encodeURIComponent(runId)}']`);
  // And by target: this run's records only, newest (the cancel) first.
  await setFilter(page, "method", "");
  await setFilter(page, "target", runId);
  await auditMethodsAre(page, () => {
    const methods = [...document.querySelectorAll("[data-testid=audit] tbody tr")].map((tr) => tr.dataset.method);
    return methods.join() === "Scheduler.CancelRun,Scheduler.SubmitRun";
  }, "this run's cancel and submit");
  await page.close();
});

test("audit page pages through more records than fit in one page", async () => {
  // 60 submits: more than the page's 50.
  for (let i = 0; i < 60; ++i) await api("SubmitRun", { source: { text: APPROVAL_FLOW } });
  const page = await signedInPage();
  await page.evaluate(() => (location.hash = "#/audit"));
  // The page's first load first: keys typed while it still renders can be
  // lost, leaving a filter that matches nothing.
  await page.waitForSelector("[data-testid=audit] tbody tr");
  await setFilter(page, "method", "SubmitRun");
  await auditMethodsAre(page, () => {
    const methods = [...document.querySelectorAll("[data-testid=audit] tbody tr")].map((tr) => tr.dataset.method);
    return methods.length === 50 && methods.every((m) => m === "Scheduler.SubmitRun");
  }, "a full page of submits");
  const first = await page.$$eval("[data-testid=audit] tbody tr td[data-col=target]", (tds) => tds.map((t) => t.textContent));
  await page.click("button ::-p-text(Older)");
  await page.waitForFunction(
    (top) => document.querySelector("[data-testid=audit] tbody tr td[data-col=target]")?.textContent !== top,
    {},
    first[0],
  );
  const second = await page.$$eval("[data-testid=audit] tbody tr td[data-col=target]", (tds) => tds.map((t) => t.textContent));
  assert.ok(second.length >= 10, `second page: ${second.length}`);
  assert.ok(second.every((t) => !first.includes(t)), "the older page repeats records");
  await page.click("button ::-p-text(Newer)");
  await page.waitForFunction(
    (top) => document.querySelector("[data-testid=audit] tbody tr td[data-col=target]")?.textContent === top,
    {},
    first[0],
  );
  for (const run of (await api("ListRuns", { pageSize: 500 })).runs ?? []) {
    if (!ended(run.status)) await api("CancelRun", { runId: run.runId });
  }
  await page.close();
});

test("the new pages say so when the token's role may not read them", async () => {
  const page = await cluster.newPage();
  await page.goto(`${cluster.base}/`);
  await page.evaluate((token) => {
    sessionStorage.setItem("taskboard.token", token);
    sessionStorage.setItem("taskboard.signedIn", "1");
  }, WORKER);
  for (const [hash, what] of [["#/audit", /audit trail/], ["#/schedules", /schedules/], ["#/usage", /LLM usage/]]) {
    await page.evaluate((h) => (location.hash = h), hash);
    await page.reload();
    const denied = await page.waitForSelector("[data-testid=denied]");
    const text = await denied.evaluate((e) => e.textContent);
    assert.match(text, /permission_denied/);
    assert.match(text, what);
  }
  await shot(page, "pages-denied");
  await page.close();
});
