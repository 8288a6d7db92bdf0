// What the console's browser tests share (docs/console.md#tests): a real
// scheduler (tokens file, HTTP API on loopback) and worker (the demo's
// agents and the integration tests' `echo`), a headless chromium, and helpers to call the API, sign in and
// save screenshots. Environment: TASKBOARD_BIN_DIR, TASKBOARD_SOURCE_DIR,
// TASKBOARD_ARTIFACTS, CHROMIUM (default /usr/bin/chromium).
import { spawn } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import puppeteer from "puppeteer-core";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export const bin = process.env.TASKBOARD_BIN_DIR ?? "build/bin";
export const source = process.env.TASKBOARD_SOURCE_DIR ?? ".";
export const artifacts =
  process.env.TASKBOARD_ARTIFACTS ?? join(tmpdir(), "taskboard-console-artifacts");
const chromium = process.env.CHROMIUM ?? "/usr/bin/chromium";

export const CLIENT = "console-client-token-0123456789";
export const WORKER = "console-worker-token-0123456789";
export const ADMIN = "console-admin-token-0123456789";

export async function until(what, check, timeoutMs = 30_000, logs = []) {
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

// Starts the scheduler, optionally a worker (the demo's agents and `echo`
// unless `agents` names another directory; `slots` tasks at once), and the
// browser. With `consoleToken` the scheduler runs as `taskboard dev` runs it:
// no tokens file, and that token required on every API call. `schedulerArgs`
// are added to the scheduler's flags.
export async function startConsoleCluster({
  worker = true,
  agents,
  slots = 4,
  consoleToken,
  schedulerArgs = [],
} = {}) {
  const cluster = { logs: [], children: [] };
  const start = (command, args, name) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (d) => cluster.logs.push(`[${name}] ${d}`));
    child.stderr.on("data", (d) => cluster.logs.push(`[${name}] ${d}`));
    cluster.children.unshift(child);
    return child;
  };
  const dir = mkdtempSync(join(tmpdir(), "taskboard-test.console-"));
  cluster.dir = dir;
  writeFileSync(
    join(dir, "tokens.yaml"),
    `tokens:
  - {token: ${CLIENT}, name: alice, role: client, tenant: acme}
  - {token: ${WORKER}, name: pool, role: worker}
  - {token: ${ADMIN}, name: ops, role: admin}
`,
  );
  let access = ["--auth-tokens", join(dir, "tokens.yaml")];
  if (consoleToken) {
    writeFileSync(join(dir, "console.token"), `${consoleToken}\n`, { mode: 0o600 });
    access = ["--http-console-token-file", join(dir, "console.token")];
  }
  start(
    join(bin, "taskboard-scheduler"),
    ["--memory", "--listen", "127.0.0.1:0", "--port-file", join(dir, "grpc.port"),
     "--http-listen", "127.0.0.1:0", "--http-port-file", join(dir, "http.port"), ...access,
     ...schedulerArgs],
    "scheduler",
  );
  const grpcPort = await until(
    "the scheduler's port",
    () => existsSync(join(dir, "grpc.port")) && readFileSync(join(dir, "grpc.port"), "utf8").trim(),
    30_000,
    cluster.logs,
  );
  cluster.base = `http://127.0.0.1:${readFileSync(join(dir, "http.port"), "utf8").trim()}`;
  cluster.api = async (method, body, token = consoleToken ?? CLIENT) => {
    const response = await fetch(`${cluster.base}/api/v1/${method}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    const json = await response.json();
    if (!response.ok) throw new Error(`${method}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  if (worker) {
    // Unless the test brings its own: the demo's agents, plus the integration
    // tests' `echo` command agent (tests/integration/agents/script.sh), whose
    // `fail-once` gives a task an earlier attempt that failed.
    let agentsDir = agents;
    if (agentsDir === undefined) {
      agentsDir = join(dir, "agents");
      cpSync(join(source, "examples/agents"), agentsDir, { recursive: true });
      for (const file of ["echo.yaml", "script.sh"]) {
        copyFileSync(join(source, "tests/integration/agents", file), join(agentsDir, file));
      }
    }
    start(
      join(bin, "taskboard-worker"),
      ["--scheduler", `127.0.0.1:${grpcPort}`, "--token", WORKER, "--slots", String(slots),
       "--worker-id", "console-worker", "--agents", agentsDir,
       "--workspace-root", source, "--data-dir", join(dir, "worker")],
      "worker",
    );
    await until(
      "the worker to connect",
      async () => (await cluster.api("ListWorkers", {}, consoleToken ?? ADMIN)).workers?.length,
      30_000,
      cluster.logs,
    );
  }
  cluster.browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  cluster.newPage = async () => {
    const page = await cluster.browser.newPage();
    // The accessibility audit injects axe-core, which the console's
    // Content-Security-Policy would (rightly) refuse.
    await page.setBypassCSP(true);
    return page;
  };
  cluster.signedInPage = async (token = CLIENT) => {
    const page = await cluster.newPage();
    await page.setViewport({ width: 1400, height: 1000 });
    await page.goto(`${cluster.base}/`);
    await page.waitForSelector("#token");
    await page.type("#token", token);
    await page.click("button[type=submit]");
    await page.waitForSelector("h1 ::-p-text(Runs)");
    return page;
  };
  cluster.stop = async () => {
    await cluster.browser?.close();
    for (const child of cluster.children) {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await new Promise((r) => child.once("exit", r));
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  return cluster;
}

// The WCAG 2 A and AA rules axe-core checks (contrast, names, labels,
// keyboard access among them) that `page` as it is now breaks: [] when none.
export async function accessibilityViolations(page) {
  await page.evaluate(axeSource);
  const result = await page.evaluate(() =>
    window.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa"] } }),
  );
  return result.violations.map(
    (v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")})`,
  );
}

export async function shot(page, name) {
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
}
