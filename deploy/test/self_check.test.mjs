// The validator must be able to fail. Starting from the real manifest files
// (deploy/base, prod-base's patches and NetworkPolicies, and the components,
// read directly, no kubectl) and recorded
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
  console.error("deploy/test/node_modules is missing: run scripts/install-deps.sh --test");
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

// The patches of prod-base (the production defaults) and of overlays/dev.
const PROD_PATCHES = ["prod-base/scheduler-patch.yaml", "prod-base/worker-patch.yaml"];
const DEV_PATCHES = ["overlays/dev/scheduler-patch.yaml", "overlays/dev/worker-patch.yaml"];
// overlays/ha on top of the prod objects: etcd, the budgets and policies, three replicas.
const HA_MANIFESTS = [
  "overlays/ha/etcd-statefulset.yaml",
  "overlays/ha/etcd-service-headless.yaml",
  "overlays/ha/etcd-pdb.yaml",
  "overlays/ha/scheduler-pdb.yaml",
  "overlays/ha/networkpolicy-ha.yaml",
];
const HA_PATCHES = ["overlays/ha/scheduler-ha-patch.yaml"];

// A strategic merge patch as far as deploy/'s patches need it: maps merge,
// lists of named items (containers, env, volumes, volumeMounts) merge by
// name, other lists and values are replaced.
function mergePatch(target, patch) {
  for (const [key, value] of Object.entries(patch)) {
    const current = target[key];
    const named = (list) => Array.isArray(list) && list.every((item) => item?.name !== undefined);
    if (named(value) && named(current)) {
      for (const item of value) {
        const existing = current.find((c) => c.name === item.name);
        if (existing) mergePatch(existing, item);
        else current.unshift(item);
      }
    } else if (value && typeof value === "object" && !Array.isArray(value) && current) {
      mergePatch(current, value);
    } else {
      target[key] = value;
    }
  }
}

function applyPatches(objects, files) {
  for (const file of files) {
    for (const patch of parseObjects(readFileSync(join(deployDir, file), "utf8"))) {
      const target = objects.find(
        (o) => o.kind === patch.kind && o.metadata.name === patch.metadata.name,
      );
      mergePatch(target, { spec: patch.spec });
    }
  }
}

// What deploy/base's commonLabels adds to its objects, their selectors and
// pod templates (app.kubernetes.io/part-of is in the files themselves).
function labelLikeBase(object) {
  const name = { "app.kubernetes.io/name": "taskboard" };
  object.metadata.labels = { ...object.metadata.labels, ...name };
  if (object.kind === "Service") object.spec.selector = { ...object.spec.selector, ...name };
  if (object.spec?.selector?.matchLabels) Object.assign(object.spec.selector.matchLabels, name);
  if (object.spec?.template) Object.assign(object.spec.template.metadata.labels, name);
}

// A fresh, valid set of objects, as the prod overlay renders them (labels,
// namespace, prod-base's patches and NetworkPolicies included), or with
// `dev` as overlays/dev patches the base (no NetworkPolicies), or with `ha`
// as overlays/ha adds replicated schedulers and etcd to prod.
function goodObjects({ dev = false, ha = false } = {}) {
  const objects = MANIFESTS.flatMap((file) => {
    const parsed = parseObjects(readFileSync(join(deployDir, file), "utf8"));
    if (file.startsWith("base/")) parsed.forEach(labelLikeBase);
    return parsed;
  });
  applyPatches(objects, dev ? DEV_PATCHES : PROD_PATCHES);
  if (!dev) {
    objects.push(
      ...parseObjects(readFileSync(join(deployDir, "prod-base", "networkpolicy.yaml"), "utf8")),
    );
  }
  if (ha) {
    for (const file of HA_MANIFESTS) {
      objects.push(...parseObjects(readFileSync(join(deployDir, file), "utf8")));
    }
    applyPatches(objects, HA_PATCHES);
  }
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
// `dev`: starting from overlays/dev's objects, validated as development;
// `ha`: from overlays/ha's.
function expectError(breakIt, pattern, { dev = false, ha = false } = {}) {
  const objects = goodObjects({ dev, ha });
  breakIt(objects);
  const errors = validateObjects(objects, context, {
    profile: dev ? "development" : "production",
  });
  assert.ok(
    errors.some((error) => pattern.test(error)),
    `expected an error matching ${pattern}, got:\n  ${errors.join("\n  ") || "(none)"}`,
  );
}

test("GoodManifests_Pass", () => {
  assert.deepEqual(validateObjects(goodObjects(), context), []);
});

test("GoodDevManifests_PassAsDevelopment", () => {
  assert.deepEqual(
    validateObjects(goodObjects({ dev: true }), context, { profile: "development" }),
    [],
  );
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
    workerContainer(objects).args.push("--verbose=debug");
  }, /taskboard-worker has no flag --verbose/);
});

test("EnvVariableTheBinaryLacks_Fails", () => {
  expectError((objects) => {
    workerContainer(objects).env.push({ name: "TASKBOARD_VERBOSE", value: "debug" });
  }, /reads no environment variable TASKBOARD_VERBOSE/);
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
  }, /terminationGracePeriodSeconds 30 must be at least --drain-grace-seconds 300/);
});

test("GracePeriodShorterThanDrainFromEnv_Fails", () => {
  expectError((objects) => {
    const entry = workerContainer(objects).env.find(
      (e) => e.name === "TASKBOARD_DRAIN_GRACE_SECONDS",
    );
    entry.value = "600";
  }, /terminationGracePeriodSeconds 330 must be at least --drain-grace-seconds 600/);
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

// Production defaults (docs/security.md#production-defaults).
const schedulerContainer = (objects) => scheduler(objects).spec.template.spec.containers[0];
const withoutEnv = (container, name) => {
  container.env = container.env.filter((entry) => entry.name !== name);
};
const schedulerPolicy = (objects) => find(objects, "NetworkPolicy", "taskboard-scheduler");

test("DevWithoutInsecure_SchedulerWouldNotStart", () => {
  expectError(
    (objects) => withoutEnv(schedulerContainer(objects), "TASKBOARD_INSECURE"),
    /refuses to start: --listen=0\.0\.0\.0:7233 with neither --auth-tokens nor --insecure/,
    { dev: true },
  );
});

test("ProdWithInsecure_Fails", () => {
  expectError((objects) => {
    schedulerContainer(objects).args.push("--insecure");
  }, /container 'scheduler': --insecure \(TASKBOARD_INSECURE\) in production/);
});

test("ProdWithoutTls_Fails", () => {
  expectError(
    (objects) => withoutEnv(schedulerContainer(objects), "TASKBOARD_TLS_CERT"),
    /production needs --tls-cert \(TASKBOARD_TLS_CERT\), a file from a Secret/,
  );
});

test("TlsKeyNotFromSecret_Fails", () => {
  expectError((objects) => {
    const volumes = scheduler(objects).spec.template.spec.volumes;
    volumes[volumes.findIndex((v) => v.name === "tls")] = { name: "tls", emptyDir: {} };
  }, /--tls-key=\/etc\/taskboard\/tls\/tls\.key is not on a volume from a Secret/);
});

test("ProdWithoutAuthTokens_Fails", () => {
  expectError(
    (objects) => withoutEnv(schedulerContainer(objects), "TASKBOARD_AUTH_TOKENS"),
    /production needs --auth-tokens \(TASKBOARD_AUTH_TOKENS\)/,
  );
});

test("WorkerWithoutTlsCa_Fails", () => {
  expectError(
    (objects) => withoutEnv(workerContainer(objects), "TASKBOARD_TLS_CA"),
    /container 'worker': production needs --tls-ca \(TASKBOARD_TLS_CA\)/,
  );
});

test("WorkerTokenLiteral_Fails", () => {
  expectError((objects) => {
    const entry = workerContainer(objects).env.find((e) => e.name === "TASKBOARD_TOKEN");
    delete entry.valueFrom;
    entry.value = "worker-token-0123456789";
  }, /production needs TASKBOARD_TOKEN from a Secret/);
});

test("MutualTlsWithoutWorkerCertificate_Fails", () => {
  expectError((objects) => {
    schedulerContainer(objects).env.push({
      name: "TASKBOARD_TLS_CLIENT_CA",
      value: "/etc/taskboard/tls/ca.crt",
    });
  }, /container 'worker': production needs --tls-cert \(TASKBOARD_TLS_CERT\)/);
});

test("GrpcProbeOnTlsPort_Fails", () => {
  expectError((objects) => {
    schedulerContainer(objects).livenessProbe = { grpc: { port: 7233 } };
  }, /livenessProbe is a grpc probe on the TLS port/);
});

test("WritableRootFilesystem_Fails", () => {
  expectError((objects) => {
    workerContainer(objects).securityContext.readOnlyRootFilesystem = false;
  }, /container 'worker': set securityContext\.readOnlyRootFilesystem: true/);
});

test("RootUser_Fails", () => {
  expectError((objects) => {
    delete scheduler(objects).spec.template.spec.securityContext.runAsNonRoot;
  }, /container 'scheduler': runAsNonRoot must be true/);
});

test("NoNetworkPolicy_Fails", () => {
  expectError((objects) => {
    objects.splice(objects.indexOf(schedulerPolicy(objects)), 1);
  }, /production needs a NetworkPolicy selecting the scheduler's pods/);
});

test("NetworkPolicyNotSelectingScheduler_Fails", () => {
  expectError((objects) => {
    schedulerPolicy(objects).spec.podSelector.matchLabels["app.kubernetes.io/component"] = "sched";
  }, /NetworkPolicy\/taskboard-scheduler: its podSelector matches no pod template/);
});

test("NetworkPolicyAdmitsEveryone_Fails", () => {
  expectError((objects) => {
    schedulerPolicy(objects).spec.ingress.push({ ports: [{ port: "grpc" }] });
  }, /NetworkPolicy\/taskboard-scheduler: admits any source to port 'grpc'/);
});

test("NetworkPolicyAdmitsOtherPods_Fails", () => {
  expectError((objects) => {
    schedulerPolicy(objects).spec.ingress[0].from.push({
      podSelector: { matchLabels: { app: "anything" } },
    });
  }, /port 'grpc' admits .*anything.*, neither the workers nor clients/);
});

test("NetworkPolicyWithoutClients_Fails", () => {
  expectError((objects) => {
    schedulerPolicy(objects).spec.ingress[0].from.splice(1, 1);
  }, /port 'grpc' does not admit clients labelled taskboard\.dev\/client: "true"/);
});

test("NetworkPolicyWithoutWorkers_Fails", () => {
  expectError((objects) => {
    schedulerPolicy(objects).spec.ingress[0].from.splice(0, 1);
  }, /port 'grpc' does not admit the workers of Deployment\/taskboard-worker/);
});

test("NetworkPolicyWithoutPrometheus_Fails", () => {
  expectError((objects) => {
    const peer = schedulerPolicy(objects).spec.ingress[1].from[0];
    peer.namespaceSelector.matchLabels["kubernetes.io/metadata.name"] = "observability";
  }, /port 'http-metrics' does not admit Prometheus/);
});

// promtool (Debian package prometheus, installed by scripts/install-deps.sh --test)
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

// overlays/ha: replicated schedulers elected through the etcd next to them
// (docs/high-availability.md#kubernetes).
const haScheduler = (objects) => scheduler(objects).spec;
const haEnv = (objects) => haScheduler(objects).template.spec.containers[0].env;
const haOnly = { ha: true };

test("GoodHaManifests_Pass", () => {
  const errors = validateObjects(goodObjects(haOnly), context);
  assert.deepEqual(errors, []);
});

test("HaWithOneReplica_Fails", () => {
  expectError((objects) => {
    haScheduler(objects).replicas = 1;
  }, /replicated schedulers need at least 2 replicas/, haOnly);
});

test("ThreeReplicasWithoutEtcd_Fails", () => {
  expectError((objects) => {
    const env = haEnv(objects);
    env.splice(env.findIndex((e) => e.name === "TASKBOARD_HA_ETCD_ENDPOINTS"), 1);
  }, /replicas must be 1: .*several replicas need --ha-etcd-endpoints/, haOnly);
});

test("HaOrderedReady_Fails", () => {
  expectError((objects) => {
    haScheduler(objects).podManagementPolicy = "OrderedReady";
  }, /podManagementPolicy must be Parallel/, haOnly);
});

test("HaRollingUpdate_Fails", () => {
  expectError((objects) => {
    haScheduler(objects).updateStrategy = { type: "RollingUpdate" };
  }, /updateStrategy must be OnDelete/, haOnly);
});

test("HaWithoutAntiAffinity_Fails", () => {
  expectError((objects) => {
    delete haScheduler(objects).template.spec.affinity;
  }, /need a podAntiAffinity term selecting their own pods/, haOnly);
});

test("HaWithoutBudget_Fails", () => {
  expectError((objects) => {
    objects.splice(objects.indexOf(find(objects, "PodDisruptionBudget", "taskboard-scheduler")), 1);
  }, /need a PodDisruptionBudget selecting their pods/, haOnly);
});

test("HaAdvertisingTheHostName_Fails", () => {
  expectError((objects) => {
    haEnv(objects).find((e) => e.name === "TASKBOARD_HA_ADVERTISE").value = "$(POD_NAME):7233";
  }, /--ha-advertise \(TASKBOARD_HA_ADVERTISE\) must name each pod under the headless Service/, haOnly);
});

test("HaEtcdEndpointOnAPortTheServiceLacks_Fails", () => {
  expectError((objects) => {
    haEnv(objects).find((e) => e.name === "TASKBOARD_HA_ETCD_ENDPOINTS").value =
      "taskboard-etcd-0.taskboard-etcd-headless:4001";
  }, /Service 'taskboard-etcd-headless' has no port 4001/, haOnly);
});

test("HaTokenLiteral_Fails", () => {
  expectError((objects) => {
    const entry = haEnv(objects).find((e) => e.name === "TASKBOARD_HA_TOKEN");
    delete entry.valueFrom;
    entry.value = "admin-token";
  }, /production needs TASKBOARD_HA_TOKEN from a Secret/, haOnly);
});

test("HaCaOffTheSecretVolume_Fails", () => {
  expectError((objects) => {
    haEnv(objects).find((e) => e.name === "TASKBOARD_HA_TLS_CA").value = "/tmp/ca.crt";
  }, /--ha-tls-ca=\/tmp\/ca.crt is not on a volume from a Secret/, haOnly);
});

test("HaPolicyWithoutReplicas_Fails", () => {
  expectError((objects) => {
    const policy = find(objects, "NetworkPolicy", "taskboard-scheduler-replicas");
    objects.splice(objects.indexOf(policy), 1);
  }, /port 'grpc' does not admit the other replicas/, haOnly);
});

test("EtcdWithoutPolicy_Fails", () => {
  expectError((objects) => {
    objects.splice(objects.indexOf(find(objects, "NetworkPolicy", "taskboard-etcd")), 1);
  }, /StatefulSet\/taskboard-etcd: production needs a NetworkPolicy selecting its pods/, haOnly);
});

test("EtcdOpenToEveryone_Fails", () => {
  expectError((objects) => {
    find(objects, "NetworkPolicy", "taskboard-etcd").spec.ingress.push({
      ports: [{ port: "etcd-client" }],
    });
  }, /NetworkPolicy\/taskboard-etcd: admits any source to port 'etcd-client'/, haOnly);
});

test("EtcdAsRoot_Fails", () => {
  expectError((objects) => {
    find(objects, "StatefulSet", "taskboard-etcd").spec.template.spec.securityContext.runAsNonRoot =
      false;
  }, /StatefulSet\/taskboard-etcd container 'etcd': runAsNonRoot must be true/, haOnly);
});
