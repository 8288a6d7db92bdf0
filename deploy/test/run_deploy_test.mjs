#!/usr/bin/env node
// The deploy test (ctest deploy.manifests): renders every overlay in
// deploy/overlays with `kubectl kustomize` and validates each against the
// schemas and the real services. The real services are started here: a
// taskboard-scheduler (port 0, temporary data directory, --metrics-listen
// 127.0.0.1:0), a worker and tools/fake-llm; one small llm task makes every
// metric family appear, then both /metrics are scraped, with a third: a
// replica's (--ha-etcd-endpoints), for the replicated schedulers' families. Histogram families
// are exposed as _bucket/_sum/_count, which the checks know.
//
// promtool (Debian package prometheus) checks the syntax of every PromQL
// expression.
//
//   node deploy/test/run_deploy_test.mjs --bin-dir build/bin [--kubectl PATH]
//       [--also-kubectl PATH]... [--promtool PATH]
//
// --kubectl defaults to $TASKBOARD_KUBECTL, then to kubectl on PATH. It must
// be 1.20 or newer: the overlays are written for the kustomize v2.0.3 inside
// Debian 12's kubectl 1.20 (kubernetes-client) and for kustomize v5. Each
// --also-kubectl (say Debian's kubectl unpacked with dpkg -x next to a
// modern one) renders every overlay as well, which must then validate and
// give the same objects as --kubectl's rendering.
//
// Exit 0: every overlay valid; 1: failures (listed); 2: the environment is
// missing something (kubectl, promtool, node_modules, the binaries).

import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";

import { Processes, waitForFile } from "./lib/processes.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const deployDir = resolve(here, "..");
const STARTUP_DEADLINE_MS = 30_000;
const RUN_DEADLINE_MS = 60_000;
const INSTALL_HINT = "run scripts/install-deps.sh --test";
// The oldest kubectl the overlays were rendered and validated with (its
// kustomize is v2.0.3, like that of every kubectl from 1.14 to 1.20).
const MIN_KUBECTL = [1, 20];

const execFileAsync = promisify(execFile);

// overlays/dev runs plaintext with --insecure; every other overlay is held to
// the production defaults (TLS, tokens, NetworkPolicies; security_checks.mjs).
const profileOf = (overlay) => (overlay === "dev" ? "development" : "production");

class EnvironmentError extends Error {}

// Returns kubectl's version (v1.20.2) or throws an EnvironmentError saying
// what to install.
function requireKubectl(kubectl) {
  let version;
  try {
    version = JSON.parse(
      execFileSync(kubectl, ["version", "--client", "-o", "json"], { encoding: "utf8" }),
    );
  } catch (error) {
    throw new EnvironmentError(
      `cannot run kubectl ('${kubectl}': ${error.message.split("\n")[0]}): ${INSTALL_HINT}`,
    );
  }
  const gitVersion = String(version.clientVersion?.gitVersion ?? "");
  const [major, minor] = (gitVersion.match(/^v?(\d+)\.(\d+)/) ?? []).slice(1).map(Number);
  if (!(major > MIN_KUBECTL[0] || (major === MIN_KUBECTL[0] && minor >= MIN_KUBECTL[1]))) {
    throw new EnvironmentError(
      `kubectl '${kubectl}' is '${gitVersion}'; the overlays need kubectl ` +
        `${MIN_KUBECTL.join(".")} or newer (Debian 12's kubernetes-client is enough): ` +
        INSTALL_HINT,
    );
  }
  return gitVersion;
}

function requireEnvironment(binDir, promtool) {
  for (const name of [
    "kubernetes-models",
    "@kubernetes-models/keda",
    "@kubernetes-models/prometheus-operator",
    "yaml",
  ]) {
    if (!existsSync(join(here, "node_modules", name, "package.json"))) {
      throw new EnvironmentError(`deploy/test/node_modules/${name} is missing: ${INSTALL_HINT}`);
    }
  }
  try {
    execFileSync(promtool, ["--version"], { stdio: "ignore" });
  } catch (error) {
    throw new EnvironmentError(
      `cannot run promtool ('${promtool}': ${error.message.split("\n")[0]}): ${INSTALL_HINT}`,
    );
  }
  for (const binary of ["taskboard-scheduler", "taskboard-worker", "taskboard", "fake-llm"]) {
    if (!existsSync(join(binDir, binary))) {
      throw new EnvironmentError(`${join(binDir, binary)} is missing: build it (scripts/build.sh)`);
    }
  }
}

// Starts the services, runs the probe flow, and returns what the checks
// compare the manifests with: {helpTexts, expositions}.
async function observeServices(binDir, work) {
  const processes = new Processes(binDir, work);
  const file = (name) => join(work, name);
  try {
    const scheduler = processes.start("taskboard-scheduler", [
      "--listen=127.0.0.1:0",
      `--data-dir=${file("data")}`,
      `--port-file=${file("scheduler.port")}`,
      "--metrics-listen=127.0.0.1:0",
      `--metrics-port-file=${file("scheduler.metrics.port")}`,
    ]);
    const schedulerPort = await waitForFile(file("scheduler.port"), scheduler, STARTUP_DEADLINE_MS);
    // Written before the gRPC port file.
    const schedulerMetrics = readFileSync(file("scheduler.metrics.port"), "utf8").trim();
    const llm = processes.start("fake-llm", [
      "--script",
      join(here, "probe", "fake-llm-script.yaml"),
      `--port-file=${file("llm.port")}`,
    ]);
    const llmPort = await waitForFile(file("llm.port"), llm, STARTUP_DEADLINE_MS);
    const worker = processes.start(
      "taskboard-worker",
      [
        `--scheduler=127.0.0.1:${schedulerPort}`,
        `--agents=${join(here, "probe", "agents")}`,
        `--workdir=${join(here, "probe")}`,
        "--metrics-listen=127.0.0.1:0",
        `--metrics-port-file=${file("worker.metrics.port")}`,
      ],
      { OPENAI_BASE_URL: `http://127.0.0.1:${llmPort}/v1` },
    );
    const workerMetrics = await waitForFile(
      file("worker.metrics.port"),
      worker,
      STARTUP_DEADLINE_MS,
    );
    const flow = join(here, "probe", "flow.yaml");
    try {
      // `taskboard run` exits 0 only when the run completed.
      await execFileAsync(
        join(binDir, "taskboard"),
        ["run", flow, "--scheduler", `127.0.0.1:${schedulerPort}`],
        { timeout: RUN_DEADLINE_MS },
      );
    } catch (error) {
      throw new Error(
        `the probe run did not complete: ${error.stdout ?? ""}${error.stderr ?? ""}${error.message}`,
      );
    }
    const scrape = async (port) => {
      const response = await fetch(`http://127.0.0.1:${port}/metrics`);
      if (!response.ok) throw new Error(`GET 127.0.0.1:${port}/metrics: ${response.status}`);
      return response.text();
    };
    // A replica of a replicated scheduler registers the ha families (the ha
    // overlay's alerts read them) at start, before it reaches etcd: one
    // pointed at a closed port serves them as a follower.
    const replica = processes.start(
      "taskboard-scheduler",
      [
        "--listen=127.0.0.1:0",
        `--data-dir=${file("replica-data")}`,
        `--port-file=${file("replica.port")}`,
        "--metrics-listen=127.0.0.1:0",
        `--metrics-port-file=${file("replica.metrics.port")}`,
        "--ha-etcd-endpoints=127.0.0.1:1",
        "--ha-cluster=deploy-test",
      ],
      {},
      "taskboard-scheduler-replica",
    );
    await waitForFile(file("replica.port"), replica, STARTUP_DEADLINE_MS);
    const replicaMetrics = readFileSync(file("replica.metrics.port"), "utf8").trim();
    const helpTexts = {};
    for (const binary of ["taskboard-scheduler", "taskboard-worker"]) {
      helpTexts[binary] = (await execFileAsync(join(binDir, binary), ["--help"])).stdout;
    }
    return {
      helpTexts,
      expositions: [
        await scrape(schedulerMetrics),
        await scrape(workerMetrics),
        await scrape(replicaMetrics),
      ],
    };
  } catch (error) {
    await processes.stopAll();
    throw new Error(`${error.message}\n${processes.logTails()}`);
  } finally {
    await processes.stopAll();
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      "bin-dir": { type: "string" },
      kubectl: { type: "string" },
      "also-kubectl": { type: "string", multiple: true, default: [] },
      promtool: { type: "string", default: "promtool" },
    },
  });
  if (!values["bin-dir"]) {
    console.error(
      "usage: run_deploy_test.mjs --bin-dir BUILD/bin [--kubectl PATH] [--also-kubectl PATH]... " +
        "[--promtool PATH]",
    );
    return 2;
  }
  const binDir = resolve(values["bin-dir"]);
  // The first renders the overlays; the others must give the same objects.
  const kubectls = [
    values.kubectl || process.env.TASKBOARD_KUBECTL || "kubectl",
    ...values["also-kubectl"],
  ].map((path) => ({ path }));
  try {
    for (const kubectl of kubectls) kubectl.version = requireKubectl(kubectl.path);
    requireEnvironment(binDir, values.promtool);
  } catch (error) {
    if (error instanceof EnvironmentError) {
      console.error(`deploy test: ${error.message}`);
      return 2;
    }
    throw error;
  }
  // Loaded only now: without node_modules the message above is the answer.
  const { parse } = await import("yaml");
  const { buildContext, parseObjects, validateObjects } = await import("./lib/validate.mjs");
  const { compareRenderings } = await import("./lib/same_objects.mjs");

  const work = mkdtempSync(join(tmpdir(), "taskboard-deploy-test-"));
  try {
    let observed;
    try {
      observed = await observeServices(binDir, work);
    } catch (error) {
      console.error(`FAIL: could not observe the real services: ${error.message}`);
      return 1;
    }
    const families = observed.expositions.flatMap((text) =>
      [...text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]),
    );
    console.log(`observed ${families.length} metric families on the scheduler and worker /metrics`);
    const adapterFile = join(deployDir, "components", "hpa", "prometheus-adapter-rules.yaml");
    const context = buildContext({
      ...observed,
      adapterRules: parse(readFileSync(adapterFile, "utf8")),
      promtool: values.promtool,
    });

    // Renders `dir` with kubectl; on failure prints why and returns undefined.
    const render = (kubectl, overlay, dir) => {
      try {
        return parseObjects(
          execFileSync(kubectl.path, ["kustomize", dir], {
            encoding: "utf8",
            stdio: ["ignore", "pipe", "pipe"],
          }),
        );
      } catch (error) {
        console.error(
          `FAIL ${overlay} (kubectl ${kubectl.version}): kubectl kustomize ${dir}: ` +
            `${error.stderr || error.message}`,
        );
        return undefined;
      }
    };

    const overlays = readdirSync(join(deployDir, "overlays")).sort();
    let failed = 0;
    for (const overlay of overlays) {
      const dir = join(deployDir, "overlays", overlay);
      let ok = true;
      let reference;
      for (const kubectl of kubectls) {
        const objects = render(kubectl, overlay, dir);
        if (!objects) {
          ok = false;
          continue;
        }
        const errors = validateObjects(objects, context, { profile: profileOf(overlay) });
        if (errors.length === 0) {
          const kinds = [...new Set(objects.map((o) => o.kind))].join(", ");
          console.log(
            `ok   ${overlay} (kubectl ${kubectl.version}): ${objects.length} objects (${kinds})`,
          );
        } else {
          ok = false;
          console.error(`FAIL ${overlay} (kubectl ${kubectl.version}):\n  ${errors.join("\n  ")}`);
        }
        if (!reference) {
          reference = { kubectl, objects };
          continue;
        }
        const differences = compareRenderings(
          reference.objects,
          objects,
          `kubectl ${reference.kubectl.version}`,
          `kubectl ${kubectl.version}`,
        );
        if (differences.length === 0) {
          console.log(
            `ok   ${overlay}: kubectl ${kubectl.version} renders the same objects as ` +
              `kubectl ${reference.kubectl.version}`,
          );
        } else {
          ok = false;
          console.error(
            `FAIL ${overlay}: kubectl ${kubectl.version} and ${reference.kubectl.version} render ` +
              `different objects:\n  ${differences.join("\n  ")}`,
          );
        }
      }
      if (!ok) failed++;
    }
    if (overlays.length === 0) {
      console.error("no overlays in deploy/overlays");
      return 1;
    }
    console.log(`${overlays.length - failed} passed, ${failed} failed`);
    return failed === 0 ? 0 : 1;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

process.exitCode = await main();
