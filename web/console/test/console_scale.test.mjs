// The console at scale, measured in a real browser (docs/performance.md#web-console):
// the runs page with 10,000 runs in the scheduler, and the graph of a
// 1,000-task run. Figures go to stdout and TASKBOARD_ARTIFACTS/scale.json;
// the test asserts behaviour (the right rows, every node drawn, a click
// opens a task), not timings. CTest: console.scale (labels e2e, web).
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { artifacts, shot, startConsoleCluster } from "./harness.mjs";

const RUNS = Number(process.env.CONSOLE_SCALE_RUNS ?? 10_000);
const TASKS = Number(process.env.CONSOLE_SCALE_TASKS ?? 1_000);
const figures = {};
let cluster;

// Waits on an approval nobody gives: the run stays running, no worker needed.
const WAITING_FLOW = `
name: scale-wait
phases:
  - id: ask
    type: approval
    prompt: never answered
`;

before(async () => {
  cluster = await startConsoleCluster({ worker: false });
});

after(async () => {
  mkdirSync(artifacts, { recursive: true });
  writeFileSync(join(artifacts, "scale.json"), JSON.stringify(figures, null, 2) + "\n");
  console.log("console scale figures:", JSON.stringify(figures));
  await cluster?.stop();
});

test(`the runs page with ${RUNS} runs`, async () => {
  const started = performance.now();
  let next = 0;
  const submitOne = async () => {
    while (next < RUNS) {
      next++;
      await cluster.api("SubmitRun", { source: { text: WAITING_FLOW } });
    }
  };
  await Promise.all(Array.from({ length: 16 }, submitOne));
  figures.submit_runs_per_second = Math.round(RUNS / ((performance.now() - started) / 1000));

  const page = await cluster.signedInPage();
  // A fresh load of the page, signed in: from navigation to the first 100 rows.
  await page.reload();
  await page.waitForFunction(() => document.querySelectorAll("table.runs tbody tr").length === 100);
  figures.runs_page_first_rows_ms = Math.round(await page.evaluate(() => performance.now()));
  const firstPage = await page.$$eval("table.runs tbody tr td a", (a) => a.map((x) => x.textContent));
  // Paging on: each page is another 100 runs, none repeated.
  const pageTimes = [];
  for (let i = 0; i < 3; ++i) {
    const before = await page.$eval("table.runs tbody tr td a", (a) => a.textContent);
    const t0 = await page.evaluate(() => performance.now());
    await page.click("button ::-p-text(Older)");
    await page.waitForFunction(
      (b) => document.querySelector("table.runs tbody tr td a")?.textContent !== b &&
        document.querySelector("table.runs")?.getAttribute("aria-busy") === "false",
      {},
      before,
    );
    pageTimes.push((await page.evaluate(() => performance.now())) - t0);
  }
  figures.runs_page_next_page_ms = Math.round(Math.max(...pageTimes));
  const fourthPage = await page.$$eval("table.runs tbody tr td a", (a) => a.map((x) => x.textContent));
  assert.equal(fourthPage.length, 100);
  assert.ok(!fourthPage.some((id) => firstPage.includes(id)));
  await shot(page, "scale-runs");
  await page.close();
});

test(`the graph of a ${TASKS}-task run`, async () => {
  // Ten layers; each task depends on one of the layer before. Its agent
  // has no worker, so the run stays as it is while we look at it.
  const width = Math.max(1, Math.floor(TASKS / 10));
  const tasks = [];
  for (let i = 0; i < TASKS; ++i) {
    const layer = Math.floor(i / width);
    const task = { id: `t${i}`, agent: "nobody", task: `task ${i}` };
    if (layer > 0) task.deps = [`t${(layer - 1) * width + (i % width)}`];
    tasks.push(task);
  }
  const flow = JSON.stringify({ name: "scale-board", kind: "board", board: { tasks } });
  const { runId } = await cluster.api("SubmitRun", { source: { text: flow } });

  const page = await cluster.signedInPage();
  const t0 = await page.evaluate(() => performance.now());
  await page.evaluate((h) => (location.hash = h), `#/runs/${encodeURIComponent(runId)}`);
  await page.waitForFunction((n) => document.querySelectorAll("svg g.node").length === n, { timeout: 60_000 }, TASKS);
  figures.graph_first_render_ms = Math.round((await page.evaluate(() => performance.now())) - t0);
  // Interactive: a click on a node opens its task.
  const t1 = await page.evaluate(() => performance.now());
  await page.click("svg g.node[data-node='task:t5']");
  await page.waitForSelector("[data-testid=task-panel] h2");
  figures.graph_click_to_task_ms = Math.round((await page.evaluate(() => performance.now())) - t1);
  // And a frame: how long the main thread is busy for a scroll of the graph.
  figures.graph_scroll_frame_ms = Math.round(
    await page.evaluate(async () => {
      const graph = document.querySelector(".graph");
      const start = performance.now();
      graph.scrollBy(400, 400);
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      return performance.now() - start;
    }),
  );
  await shot(page, "scale-graph");
  await page.close();
});
