// Child runs nested in the run page's graph (docs/console.md#pages), in a
// real browser against a real scheduler and worker. The flow's `build` phase
// is a plan-and-execute child run whose four steps are each a supervisor
// child run (grandchildren of the page's run); the supervisors' workers are
// held until the test releases them, so the nested graphs are seen running
// and then reaching completed live. CTest: console.nested (labels e2e, web).
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { accessibilityViolations, shot, startConsoleCluster, until } from "./harness.mjs";

const FLOW = `
name: console-nested
phases:
  - id: prep
    agent: stepper
    task: Prepare the widget
  - id: build
    type: plan
    agent: stepper
    task: Build the widget
    plan:
      plannerAgent: planner
      maxConcurrency: 4
      stepExecutor: {plannerAgent: planner, workerAgent: slow, reviewerAgent: planner}
    dependsOn: [prep]
`;

// Command agents: the planner plans four steps for the plan, one piece for
// each step's supervisor, and accepts as the supervisors' reviewer; `slow`
// holds every task until the file `released` exists.
const AGENTS = {
  planner: `case "$TASKBOARD_PROMPT" in
  *"Review each result"*) echo '[{"task_id": "work", "verdict": "accepted"}]' ;;
  *"Piece "*) echo '{"tasks": [{"id": "work", "goal": "Carry out this part"}]}' ;;
  *) echo '{"tasks": [{"id": "p1", "goal": "Piece one"}, {"id": "p2", "goal": "Piece two"}, {"id": "p3", "goal": "Piece three"}, {"id": "p4", "goal": "Piece four"}]}' ;;
esac
`,
  stepper: `printf 'did: %s\\n' "$TASKBOARD_PROMPT"
`,
  slow: `echo "$TASKBOARD_RUN_ID" >> "$TASKBOARD_AGENT_DIR/held.log"
while [ ! -e "$TASKBOARD_AGENT_DIR/released" ]; do sleep 0.05; done
printf 'did: %s\\n' "$TASKBOARD_PROMPT"
`,
};

let cluster;
let agents;

before(async () => {
  agents = mkdtempSync(join(tmpdir(), "taskboard-test.console-nested-agents-"));
  for (const [name, body] of Object.entries(AGENTS)) {
    writeFileSync(join(agents, `${name}.sh`), `#!/bin/sh\n${body}`);
    chmodSync(join(agents, `${name}.sh`), 0o755);
    writeFileSync(join(agents, `${name}.yaml`), `name: ${name}\ntype: command\ncommand: ["./${name}.sh"]\n`);
  }
  cluster = await startConsoleCluster({ agents, slots: 8 });
});

after(async () => {
  await cluster?.stop();
  if (agents) rmSync(agents, { recursive: true, force: true });
});

// Counts the page's WatchRun streams open now: started minus ended.
function countStreams(page) {
  const open = new Set();
  const isWatch = (request) => request.url().endsWith("/api/v1/WatchRun");
  page.on("request", (r) => isWatch(r) && open.add(r));
  page.on("requestfinished", (r) => open.delete(r));
  page.on("requestfailed", (r) => open.delete(r));
  return () => open.size;
}

const nestedStates = (page, runId) =>
  page.$$eval(`svg g.node[data-run='${runId}']`, (nodes) => nodes.map((n) => n.getAttribute("data-state")));

async function expand(page, childRunId) {
  // The control appears once the run (or the child holding it) is loaded.
  const control = await page.waitForSelector(`[aria-label='Expand child run ${childRunId}']`);
  await control.click();
  await page.waitForSelector(`g.nested[data-run='${childRunId}'] g.node`);
}

test("a child run expands inside its node, live, and its children inside it", async () => {
  const { api } = cluster;
  const { runId } = await api("SubmitRun", { source: { text: FLOW } });
  // Held: the plan child's four steps each run a supervisor whose worker waits.
  const child = await until("the plan child run", async () => {
    const build = (await api("GetRun", { runId })).run.tasks?.find((t) => t.phaseId === "build");
    return build?.childRunId;
  });
  const steps = await until("four steps with child runs", async () => {
    const tasks = (await api("GetRun", { runId: child })).run.tasks ?? [];
    const withChild = tasks.filter((t) => t.childRunId);
    return withChild.length === 4 && withChild;
  }, 30_000, cluster.logs);
  const grandchildren = steps.map((s) => s.childRunId);
  await until("every supervisor's worker to be held", () => {
    const held = existsSync(join(agents, "held.log")) ? readFileSync(join(agents, "held.log"), "utf8") : "";
    return grandchildren.every((id) => held.split("\n").includes(id));
  }, 30_000, cluster.logs);

  const page = await cluster.signedInPage();
  const streams = countStreams(page);
  await page.evaluate((h) => (location.hash = h), `#/runs/${encodeURIComponent(runId)}`);
  await page.waitForSelector(`[aria-label='Expand child run ${child}'][aria-expanded=false]`);
  await until("the page's own stream", () => streams() === 1);

  // Keyboard: Tab reaches the expand control, Enter expands it, and Tab
  // goes on into the child's tasks.
  let onToggle = false;
  for (let i = 0; i < 100 && !onToggle; ++i) {
    await page.keyboard.press("Tab");
    onToggle = await page.evaluate((id) => document.activeElement?.getAttribute("data-child-run") === id, child);
  }
  assert.ok(onToggle, "Tab never reached the expand control");
  await page.keyboard.press("Enter");
  await page.waitForSelector(`g.nested[data-run='${child}'] g.node`);
  assert.equal(
    await page.$eval(`[data-child-run='${child}']`, (e) => e.getAttribute("aria-label")),
    `Collapse child run ${child}`,
  );
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-run")), child);
  // The child's graph: its planner done, its steps running, each step
  // expandable in turn.
  await until("the child's steps drawn running", async () => {
    const states = await nestedStates(page, child);
    return states.includes("completed") && states.filter((s) => s === "running").length === 4;
  });
  await shot(page, "nested-child-expanded");

  // Children of the child: Space on one's control, clicks on the others.
  // (An SVG element: puppeteer's focus() takes HTML elements only.)
  await page.$eval(`[data-child-run='${grandchildren[0]}']`, (e) => e.focus());
  await page.keyboard.press(" ");
  await page.waitForSelector(`g.nested[data-run='${grandchildren[0]}'] g.node`);
  for (const id of grandchildren.slice(1)) await expand(page, id);
  for (const id of grandchildren) {
    await until(`${id}'s held worker drawn running`, async () => (await nestedStates(page, id)).includes("running"));
  }
  // Five expanded, three streaming (the newest), the two oldest paused with a note.
  const modes = async () =>
    page.$$eval("g.nested", (groups) => Object.fromEntries(groups.map((g) => [g.dataset.run, g.dataset.live])));
  assert.deepEqual(await modes(), {
    [child]: "paused",
    [grandchildren[0]]: "paused",
    [grandchildren[1]]: "live",
    [grandchildren[2]]: "live",
    [grandchildren[3]]: "live",
  });
  await until("1 + 3 streams", () => streams() === 4);
  assert.match(await page.$eval(`[data-child-run='${child}'] ~ [data-testid=child-note]`, (t) => t.textContent),
    /paused \(3 live at most\)/);
  assert.deepEqual(await accessibilityViolations(page), []);
  await shot(page, "nested-expanded-running");

  // Collapsing frees a stream: the newest paused child goes live.
  await page.click(`[aria-label='Collapse child run ${grandchildren[3]}']`);
  await page.waitForFunction((id) => !document.querySelector(`g.nested[data-run='${id}']`), {}, grandchildren[3]);
  await until("g1 live", async () => (await modes())[grandchildren[0]] === "live");
  await until("still 1 + 3 streams", () => streams() === 4);

  // Leaving the page closes every stream.
  await page.evaluate(() => (location.hash = "#/runs"));
  await until("no streams", () => streams() === 0);

  // Back on the run, released: the nested graphs reach completed live.
  await page.evaluate((h) => (location.hash = h), `#/runs/${encodeURIComponent(runId)}`);
  await expand(page, child);
  await expand(page, grandchildren[0]);
  writeFileSync(join(agents, "released"), "go\n");
  await until("the child's and grandchild's nodes completed", async () => {
    const states = [...(await nestedStates(page, child)), ...(await nestedStates(page, grandchildren[0]))];
    return states.length > 0 && states.every((s) => s === "completed");
  }, 60_000, cluster.logs);
  await page.waitForSelector("h1 .badge.s-completed", { timeout: 60_000 });
  assert.match(await page.$eval(`g.nested[data-run='${child}']`, (g) => g.getAttribute("aria-label")), /completed/);
  assert.deepEqual(await accessibilityViolations(page), []);
  await shot(page, "nested-completed");

  // Collapsing restores the node.
  await page.click(`[aria-label='Collapse child run ${child}']`);
  await page.waitForFunction((id) => !document.querySelector(`g.nested[data-run='${id}']`), {}, child);
  assert.equal(await page.$$eval("g.nested", (g) => g.length), 0);
  assert.equal(await page.$eval("g.node[data-node='phase:build'] rect", (r) => r.getAttribute("height")), "48");
  assert.equal(await page.$eval(`[data-child-run='${child}']`, (e) => e.getAttribute("aria-expanded")), "false");

  // A task inside a nested graph opens that child run's task page.
  await expand(page, child);
  const nestedTask = await page.$eval(`g.node[data-run='${child}'][data-state=completed]`, (n) => n.getAttribute("data-node"));
  await page.click(`g.node[data-run='${child}'][data-node='${nestedTask}']`);
  await page.waitForFunction((id) => location.hash.startsWith(`#/runs/${encodeURIComponent(id)}/`), {}, child);
  await page.waitForSelector("[data-testid=task-panel] h2");
  await page.waitForSelector(`dl.facts dd ::-p-text(${child})`);
  await shot(page, "nested-task-page");
  await page.close();
});
