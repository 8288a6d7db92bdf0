// `taskboard dev`'s console link (docs/console.md#opening-it) in a real
// browser: a scheduler without tokens whose API takes only the session's
// console token. The link opens the console straight away, with no sign-in
// step, and the token leaves the address bar; the bare URL asks for it.
// CTest runs it as console.dev_link (labels e2e, web).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { shot, startConsoleCluster } from "./harness.mjs";

const TOKEN = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

let cluster;

before(async () => {
  cluster = await startConsoleCluster({ worker: false, consoleToken: TOKEN });
});

after(async () => {
  await cluster?.stop();
});

test("the dev link opens the console signed in, and the token leaves the address bar", async () => {
  const page = await cluster.newPage();
  await page.goto(`${cluster.base}/#token=${TOKEN}`);
  await page.waitForSelector("h1 ::-p-text(Runs)");
  assert.equal(await page.$("#token"), null, "no sign-in form");
  const hash = await page.evaluate(() => location.hash);
  assert.equal(hash, "#/runs");
  assert.ok(!(await page.evaluate(() => location.href)).includes(TOKEN));
  // The runs list came from the API, with the token: an empty list, not a
  // refusal.
  await page.waitForSelector("::-p-text(No runs match.)");
  assert.equal(await page.$("::-p-text(unauthenticated)"), null);
  await shot(page, "dev-link");
  await page.close();
});

test("without the link the console asks for the token, and a wrong one is refused", async () => {
  // A new tab: sessionStorage, where the console keeps its token, is per tab.
  const page = await cluster.newPage();
  await page.goto(`${cluster.base}/`);
  await page.waitForSelector("#token");
  await page.type("#token", "not-the-session-token-0000");
  await page.click("button[type=submit]");
  await page.waitForSelector("::-p-text(Refused (unauthenticated))");
  await page.close();
});

test("the API refuses calls without the session's token", async () => {
  const response = await fetch(`${cluster.base}/api/v1/ListRuns`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: "{}",
  });
  assert.equal(response.status, 401);
  const withToken = await fetch(`${cluster.base}/api/v1/ListRuns`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${TOKEN}` },
    body: "{}",
  });
  assert.equal(withToken.status, 200);
});
