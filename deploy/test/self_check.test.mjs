// The validator must be able to fail. Starting from the real manifest files
// (deploy/base and the components, read directly, no kubectl) and recorded
// --help and /metrics of the services (fixtures/), each test breaks one
// thing a cluster or an operator would trip over and expects the validator
// to name it. ctest: deploy.validator_self_check.
//
//   node --test deploy/test/self_check.test.mjs

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
if (!existsSync(join(here, "node_modules", "kubernetes-models", "package.json"))) {
  console.error("deploy/test/node_modules is missing: run scripts/install-deps.sh");
  process.exit(1);
}
const { parse, stringify } = await import("yaml");
const { buildContext, parseObjects, validateObjects } = await import("./lib/validate.mjs");
const deployDir = resolve(here, "..");
const fixture = (name) => readFileSync(join(here, "fixtures", name), "utf8");

const MANIFESTS = [
  "base/scheduler-statefulset.yaml",
  "base/scheduler-service-headless.yaml",
  "base/scheduler-service.yaml",
  "base/worker-deployment.yaml",
  "base/worker-pdb.yaml",
  "base/serviceaccounts.yaml",
  "components/monitoring/scheduler-servicemonitor.yaml",
  "components/monitoring/worker-podmonitor.yaml",
  "components/monitoring/prometheusrule.yaml",
  "components/keda/worker-scaledobject.yaml",
];

// What deploy/base's commonLabels adds to its objects, their selectors and
// pod templates (app.kubernetes.io/part-of is in the files themselves).
function labelLikeBase(object) {
  const name = { "app.kubernetes.io/name": "taskboard" };
  object.metadata.labels = { ...object.metadata.labels, ...name };
  if (object.kind === "Service") object.spec.selector = { ...object.spec.selector, ...name };
  if (object.spec?.selector?.matchLabels) Object.assign(object.spec.selector.matchLabels, name);
  if (object.spec?.template) Object.assign(object.spec.template.metadata.labels, name);
}

// A fresh, valid set of objects, as the prod overlay renders them (labels
// and namespace included).
function goodObjects() {
  const objects = MANIFESTS.flatMap((file) => {
    const parsed = parseObjects(readFileSync(join(deployDir, file), "utf8"));
    if (file.startsWith("base/")) parsed.forEach(labelLikeBase);
    return parsed;
  });
  objects.push({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "taskboard-worker-agents" },
    data: {
      "grafana.json": readFileSync(join(deployDir, "grafana", "taskboard-dashboard.json"), "utf8"),
    },
  });
  for (const object of objects) object.metadata.namespace = "taskboard";
  return objects;
}

const context = buildContext({
  helpTexts: {
    "taskboard-scheduler": fixture("scheduler-help.txt"),
    "taskboard-worker": fixture("worker-help.txt"),
  },
  expositions: [fixture("scheduler-metrics.txt"), fixture("worker-metrics.txt")],
  adapterRules: parse(
    readFileSync(join(deployDir, "components", "hpa", "prometheus-adapter-rules.yaml"), "utf8"),
  ),
});

const find = (objects, kind, name) =>
  objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
const worker = (objects) => find(objects, "Deployment", "taskboard-worker");
const workerContainer = (objects) => worker(objects).spec.template.spec.containers[0];
const scheduler = (objects) => find(objects, "StatefulSet", "taskboard-scheduler");
const firstAlert = (objects) => find(objects, "PrometheusRule").spec.groups[0].rules[1];
const scaledObjectQuery = (objects) => find(objects, "ScaledObject").spec.triggers[0].metadata;

// Validates `objects` after `breakIt` and expects an error matching `pattern`.
function expectError(breakIt, pattern) {
  const objects = goodObjects();
  breakIt(objects);
  const errors = validateObjects(objects, context);
  assert.ok(
    errors.some((error) => pattern.test(error)),
    `expected an error matching ${pattern}, got:\n  ${errors.join("\n  ") || "(none)"}`,
  );
}

test("GoodManifests_Pass", () => {
  assert.deepEqual(validateObjects(goodObjects(), context), []);
});

test("UnknownKind_Fails", () => {
  expectError(
    (objects) =>
      objects.push({
        apiVersion: "networking.k8s.io/v1",
        kind: "Ingress",
        metadata: { name: "x" },
      }),
    /Ingress\/x: unknown kind networking\.k8s\.io\/v1\/Ingress/,
  );
});

test("SchemaViolation_Fails", () => {
  expectError((objects) => {
    workerContainer(objects).ports[0].containerPort = "9091";
  }, /Deployment\/taskboard-worker: schema: .*containerPort must be integer/);
});

test("SelectorNotMatchingPodLabels_Fails", () => {
  expectError((objects) => {
    worker(objects).spec.template.metadata.labels["app.kubernetes.io/component"] = "workers";
  }, /does not select its own pod template's labels/);
});

test("ServiceTargetPortMisnamed_Fails", () => {
  expectError((objects) => {
    find(objects, "Service", "taskboard-scheduler").spec.ports[1].targetPort = "metrics";
  }, /port 'http-metrics' targets "metrics", not a container port/);
});

test("ProbeOnMissingPort_Fails", () => {
  expectError((objects) => {
    scheduler(objects).spec.template.spec.containers[0].readinessProbe.httpGet.port = "http";
  }, /readinessProbe uses port "http"/);
});

test("FlagTheBinaryLacks_Fails", () => {
  expectError((objects) => {
    workerContainer(objects).args.push("--log-level=debug");
  }, /taskboard-worker has no flag --log-level/);
});

test("EnvVariableTheBinaryLacks_Fails", () => {
  expectError((objects) => {
    workerContainer(objects).env.push({ name: "TASKBOARD_LOG_LEVEL", value: "debug" });
  }, /reads no environment variable TASKBOARD_LOG_LEVEL/);
});

test("MetricsBoundToLoopback_Fails", () => {
  expectError((objects) => {
    const args = scheduler(objects).spec.template.spec.containers[0].args;
    args[args.indexOf("--metrics-listen=0.0.0.0:9090")] = "--metrics-listen=127.0.0.1:9090";
  }, /unreachable from other pods/);
});

test("ListenPortDiffersFromContainerPort_Fails", () => {
  expectError((objects) => {
    scheduler(objects).spec.template.spec.containers[0].ports[0].containerPort = 7000;
  }, /--listen=0\.0\.0\.0:7233 but port 'grpc' is 7000/);
});

test("TwoSchedulerReplicas_Fails", () => {
  expectError((objects) => {
    scheduler(objects).spec.replicas = 2;
  }, /replicas must be 1/);
});

test("DataDirOffTheVolume_Fails", () => {
  expectError((objects) => {
    const args = scheduler(objects).spec.template.spec.containers[0].args;
    args[args.indexOf("--data-dir=/var/lib/taskboard/data")] = "--data-dir=/tmp/data";
  }, /--data-dir=\/tmp\/data is not on a volumeClaimTemplate's mount/);
});

test("WorkerPointsAtMissingService_Fails", () => {
  expectError((objects) => {
    workerContainer(objects).args[0] = "--scheduler=scheduler:7233";
  }, /--scheduler=scheduler:7233 names no Service/);
});

test("GracePeriodShorterThanDrain_Fails", () => {
  expectError((objects) => {
    worker(objects).spec.template.spec.terminationGracePeriodSeconds = 30;
  }, /terminationGracePeriodSeconds 30 must be at least --drain-grace-seconds 30/);
});

test("GracePeriodShorterThanDrainFromEnv_Fails", () => {
  expectError((objects) => {
    const entry = workerContainer(objects).env.find(
      (e) => e.name === "TASKBOARD_DRAIN_GRACE_SECONDS",
    );
    entry.value = "300";
  }, /terminationGracePeriodSeconds 45 must be at least --drain-grace-seconds 300/);
});

test("UnknownMetricInAlert_Fails", () => {
  expectError((objects) => {
    firstAlert(objects).expr = "sum(taskboard_scheduler_workers_connected) == 0";
  }, /taskboard_scheduler_workers_connected is not served/);
});

test("HistogramWithoutSuffix_Fails", () => {
  expectError((objects) => {
    firstAlert(objects).expr = "taskboard_scheduler_dispatch_latency_seconds > 1";
  }, /a histogram: use taskboard_scheduler_dispatch_latency_seconds_bucket/);
});

test("UnknownLabelInScalerQuery_Fails", () => {
  expectError((objects) => {
    const metadata = scaledObjectQuery(objects);
    metadata.query = metadata.query.replace('state="busy"', 'status="busy"');
  }, /taskboard_worker_slots has no label 'status'/);
});

test("ScalerQueryInOtherNamespace_Fails", () => {
  expectError((objects) => {
    for (const object of objects) object.metadata.namespace = "tb";
  }, /reads namespace="taskboard" but deploys to 'tb'/);
});

test("ScalerThresholdNotSlots_Fails", () => {
  expectError((objects) => {
    scaledObjectQuery(objects).threshold = "10";
  }, /target 10 per replica but the workers have --slots=4/);
});

test("KedaAndHpaOnTheWorkers_Fails", () => {
  expectError((objects) => {
    objects.push(
      ...parseObjects(
        readFileSync(join(deployDir, "components", "hpa", "worker-hpa.yaml"), "utf8"),
      ).map((hpa) => ({ ...hpa, metadata: { ...hpa.metadata, namespace: "taskboard" } })),
    );
  }, /both scale Deployment\/taskboard-worker/);
});

test("AlertOnUnscrapedJob_Fails", () => {
  expectError((objects) => {
    firstAlert(objects).expr = 'up{job="scheduler"} == 0';
  }, /up\{job="scheduler"\} is scraped by no ServiceMonitor/);
});

test("ServiceMonitorOnMissingPort_Fails", () => {
  expectError((objects) => {
    find(objects, "ServiceMonitor").spec.endpoints[0].port = "metrics";
  }, /no selected Service has a port named 'metrics'/);
});

test("HeadlessServiceScrapedToo_Fails", () => {
  expectError((objects) => {
    const headless = find(objects, "Service", "taskboard-scheduler-headless");
    headless.metadata.labels["taskboard.io/scrape"] = "true";
    headless.spec.ports.push({ name: "http-metrics", port: 9090, targetPort: "http-metrics" });
  }, /scrapes StatefulSet\/taskboard-scheduler twice/);
});

test("DashboardQueryOnUnknownMetric_Fails", () => {
  expectError((objects) => {
    const configMap = find(objects, "ConfigMap", "taskboard-worker-agents");
    const dashboard = JSON.parse(configMap.data["grafana.json"]);
    dashboard.panels[1].targets[0].expr = "sum(taskboard_scheduler_up)";
    configMap.data["grafana.json"] = JSON.stringify(dashboard);
  }, /panel 'Scheduler up': taskboard_scheduler_up is not served/);
});

// promtool (Debian package prometheus, installed by scripts/install-deps.sh)
// catches what the name checks cannot: PromQL that does not parse.
const hasPromtool = spawnSync("promtool", ["--version"]).status === 0;

test(
  "PromqlSyntaxError_FailsWithPromtool",
  { skip: !hasPromtool && "promtool not installed" },
  () => {
    const objects = goodObjects();
    scaledObjectQuery(objects).query = 'sum(taskboard_worker_slots{state="busy"}) +';
    const errors = validateObjects(objects, { ...context, promtool: "promtool" });
    assert.ok(
      errors.some((error) =>
        /promtool check rules:[\s\S]*ScaledObject\/taskboard-worker trigger 0/.test(error),
      ),
      `expected promtool to name the ScaledObject's query, got:\n  ${errors.join("\n  ") || "(none)"}`,
    );
    assert.deepEqual(validateObjects(goodObjects(), { ...context, promtool: "promtool" }), []);
  },
);

// The command-line entry exits 1 on a bad manifest and 0 on a good one.
test("ValidateCli_ExitCodeFollowsTheManifests", () => {
  const work = mkdtempSync(join(tmpdir(), "taskboard-validate-"));
  try {
    const write = (name, text) => {
      writeFileSync(join(work, name), text);
      return join(work, name);
    };
    const args = (rendered) => [
      join(here, "validate.mjs"),
      "--rendered",
      rendered,
      "--binary-help",
      `taskboard-scheduler=${join(here, "fixtures", "scheduler-help.txt")}`,
      "--binary-help",
      `taskboard-worker=${join(here, "fixtures", "worker-help.txt")}`,
      "--metrics",
      join(here, "fixtures", "scheduler-metrics.txt"),
      "--metrics",
      join(here, "fixtures", "worker-metrics.txt"),
    ];
    const good = goodObjects();
    const ok = spawnSync(
      process.execPath,
      args(write("good.yaml", good.map((o) => stringify(o)).join("---\n"))),
      { encoding: "utf8" },
    );
    assert.equal(ok.status, 0, ok.stderr);
    scheduler(good).spec.replicas = 3;
    const bad = spawnSync(
      process.execPath,
      args(write("bad.yaml", good.map((o) => stringify(o)).join("---\n"))),
      { encoding: "utf8" },
    );
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /bad\.yaml: StatefulSet\/taskboard-scheduler: replicas must be 1/);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
