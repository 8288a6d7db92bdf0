// Cross-references among the workloads, Services, PDBs and config: labels
// and selectors match, named ports exist, the flags are real and agree with
// the ports, the worker reaches the scheduler, the worker's grace period
// covers its drain, and replicated schedulers (--ha-etcd-endpoints) are laid
// out so that only the leader being Ready never stalls them.

import { binaryOf, flagValue, parseArgs, splitHostPort } from "./flags.mjs";
import {
  containersOf,
  findContainerPort,
  idOf,
  named,
  ofKind,
  podLabels,
  selects,
  workloads,
} from "./objects.mjs";

// Seconds the worker needs after its drain grace to hand back its tasks and
// exit before the kubelet's SIGKILL.
export const HAND_BACK_MARGIN_SECONDS = 10;
const DEFAULT_DRAIN_GRACE_SECONDS = 30;
// Images of the services Taskboard depends on, run next to it by an overlay
// (overlays/ha's etcd): their flags are theirs, not checked against a --help.
const DEPENDENCY_IMAGES = new Set(["etcd"]);

// The scheduler container's --ha-etcd-endpoints ("" when not replicated).
export function haEndpoints(container) {
  return String(flagValue(container, "--ha-etcd-endpoints", "TASKBOARD_HA_ETCD_ENDPOINTS", ""));
}

function checkPodTemplate(workload, objects, helps, errors) {
  const id = idOf(workload);
  const spec = workload.spec?.template?.spec ?? {};
  if (!selects(workload.spec?.selector, podLabels(workload))) {
    errors.push(`${id}: spec.selector does not select its own pod template's labels`);
  }
  const account = spec.serviceAccountName;
  if (account && !named(objects, "ServiceAccount", account)) {
    errors.push(`${id}: serviceAccountName '${account}' is not rendered`);
  }
  const volumes = new Set((spec.volumes ?? []).map((volume) => volume.name));
  for (const claim of workload.spec?.volumeClaimTemplates ?? []) volumes.add(claim.metadata?.name);
  for (const volume of spec.volumes ?? []) {
    const configMap = volume.configMap?.name;
    if (configMap && !volume.configMap.optional && !named(objects, "ConfigMap", configMap)) {
      errors.push(`${id}: volume '${volume.name}' names ConfigMap '${configMap}', not rendered`);
    }
  }
  for (const container of spec.containers ?? []) {
    const where = `${id} container '${container.name}'`;
    for (const mount of container.volumeMounts ?? []) {
      if (!volumes.has(mount.name)) errors.push(`${where}: mounts unknown volume '${mount.name}'`);
    }
    for (const kind of ["startupProbe", "livenessProbe", "readinessProbe"]) {
      const probe = container[kind];
      if (!probe) continue;
      const port = probe.httpGet?.port ?? probe.grpc?.port ?? probe.tcpSocket?.port;
      if (findContainerPort([container], port) === undefined) {
        errors.push(
          `${where}: ${kind} uses port ${JSON.stringify(port)}, not a port of the container`,
        );
      }
    }
    checkFlags(where, container, helps, errors);
  }
}

// Every flag and TASKBOARD_* variable exists in the binary's --help; the
// listen flags bind all interfaces on the port of the named container port.
function checkFlags(where, container, helps, errors) {
  const binary = binaryOf(container);
  const help = helps.get(binary);
  if (help === undefined && DEPENDENCY_IMAGES.has(binary)) return;
  if (help === undefined) {
    errors.push(
      `${where}: image '${container.image}' is not taskboard-scheduler or taskboard-worker`,
    );
    return;
  }
  for (const flag of parseArgs(container.args).keys()) {
    if (!help.flags.has(flag))
      errors.push(`${where}: ${binary} has no flag ${flag} (see its --help)`);
  }
  for (const arg of container.args ?? []) {
    if (!String(arg).startsWith("--")) errors.push(`${where}: argument '${arg}' is not a --flag`);
  }
  for (const { name } of container.env ?? []) {
    if (name.startsWith("TASKBOARD_") && !help.env.has(name)) {
      errors.push(`${where}: ${binary} reads no environment variable ${name}`);
    }
  }
  const listens = [
    ["--listen", "TASKBOARD_LISTEN", "grpc"],
    ["--metrics-listen", "TASKBOARD_METRICS_LISTEN", "http-metrics"],
  ];
  for (const [flag, envName, portName] of listens) {
    if (!help.flags.has(flag)) continue;
    const value = flagValue(container, flag, envName, undefined);
    const port = findContainerPort([container], portName);
    if (value === undefined || value === "") {
      if (port) errors.push(`${where}: declares port '${portName}' but does not set ${flag}`);
      continue;
    }
    const { host, port: number } = splitHostPort(value);
    if (host !== "0.0.0.0" && host !== "[::]" && host !== "") {
      errors.push(`${where}: ${flag}=${value} is unreachable from other pods: bind 0.0.0.0`);
    }
    if (!port) {
      errors.push(`${where}: ${flag}=${value} but no container port is named '${portName}'`);
    } else if (port.containerPort !== number) {
      errors.push(`${where}: ${flag}=${value} but port '${portName}' is ${port.containerPort}`);
    }
  }
}

function schedulerWorkloads(objects) {
  return workloads(objects).filter((workload) =>
    containersOf(workload).some((container) => binaryOf(container) === "taskboard-scheduler"),
  );
}

function checkScheduler(statefulSet, objects, errors) {
  const id = idOf(statefulSet);
  if (statefulSet.kind !== "StatefulSet") {
    errors.push(`${id}: the scheduler must be a StatefulSet (one pod, its own volume)`);
    return;
  }
  const replicated = containersOf(statefulSet).some(
    (container) => binaryOf(container) === "taskboard-scheduler" && haEndpoints(container) !== "",
  );
  if (replicated) {
    checkReplicated(statefulSet, objects, errors);
  } else if (statefulSet.spec.replicas !== 1) {
    errors.push(
      `${id}: replicas must be 1: one scheduler owns one RocksDB directory ` +
        "(several replicas need --ha-etcd-endpoints, as overlays/ha)",
    );
  }
  const headless = named(objects, "Service", statefulSet.spec.serviceName);
  if (!headless || headless.spec?.clusterIP !== "None") {
    errors.push(`${id}: serviceName '${statefulSet.spec.serviceName}' is not a headless Service`);
  } else if (!selects(headless.spec.selector, podLabels(statefulSet))) {
    errors.push(`${id}: its headless Service does not select its pods`);
  }
  for (const container of containersOf(statefulSet)) {
    if (binaryOf(container) !== "taskboard-scheduler") continue;
    const where = `${id} container '${container.name}'`;
    if (flagValue(container, "--memory", "TASKBOARD_MEMORY", false) !== false) {
      errors.push(`${where}: --memory keeps no state: the scheduler needs its volume`);
    }
    const durability = flagValue(container, "--durability", "TASKBOARD_DURABILITY", "sync");
    if (durability !== "sync") {
      errors.push(
        `${where}: --durability=${durability}; deployments use sync (fsync every commit)`,
      );
    }
    const dataDir = flagValue(container, "--data-dir", "TASKBOARD_DATA_DIR", "taskboard-data");
    const claims = new Set(
      (statefulSet.spec.volumeClaimTemplates ?? []).map((c) => c.metadata?.name),
    );
    const onClaim = (container.volumeMounts ?? []).some(
      (mount) =>
        claims.has(mount.name) &&
        (dataDir === mount.mountPath || String(dataDir).startsWith(`${mount.mountPath}/`)),
    );
    if (!onClaim) {
      errors.push(`${where}: --data-dir=${dataDir} is not on a volumeClaimTemplate's mount`);
    }
  }
}

// Replicated schedulers (docs/high-availability.md#kubernetes): /readyz is
// 200 on the leader alone, which the StatefulSet's rollout and the budget
// must allow for; each replica must be reachable by a name of its own; the
// etcd endpoints that name a Service here must reach its client port.
function checkReplicated(statefulSet, objects, errors) {
  const id = idOf(statefulSet);
  const spec = statefulSet.spec;
  if (!(spec.replicas >= 2)) {
    errors.push(
      `${id}: replicated schedulers need at least 2 replicas (3 recommended): a leader and a ` +
        "follower that holds every acknowledged write",
    );
  }
  if (spec.podManagementPolicy !== "Parallel") {
    errors.push(
      `${id}: podManagementPolicy must be Parallel: only the leader is Ready, so OrderedReady ` +
        "would wait forever for a follower before starting the next replica",
    );
  }
  if (spec.updateStrategy?.type !== "OnDelete") {
    errors.push(
      `${id}: updateStrategy must be OnDelete: only the leader is Ready, so a RollingUpdate ` +
        "would stop at the first follower it replaced",
    );
  }
  const antiAffinity = spec.template?.spec?.affinity?.podAntiAffinity ?? {};
  const terms = [
    ...(antiAffinity.requiredDuringSchedulingIgnoredDuringExecution ?? []),
    ...(antiAffinity.preferredDuringSchedulingIgnoredDuringExecution ?? []).map(
      (weighted) => weighted.podAffinityTerm,
    ),
  ];
  if (!terms.some((term) => term?.topologyKey && selects(term.labelSelector, podLabels(statefulSet)))) {
    errors.push(
      `${id}: replicated schedulers need a podAntiAffinity term selecting their own pods, so ` +
        "that one node's loss never takes two replicas",
    );
  }
  if (
    !ofKind(objects, "PodDisruptionBudget").some((budget) =>
      selects(budget.spec?.selector, podLabels(statefulSet)),
    )
  ) {
    errors.push(`${id}: replicated schedulers need a PodDisruptionBudget selecting their pods`);
  }
  for (const container of containersOf(statefulSet)) {
    if (binaryOf(container) !== "taskboard-scheduler") continue;
    const where = `${id} container '${container.name}'`;
    const advertise = String(flagValue(container, "--ha-advertise", "TASKBOARD_HA_ADVERTISE", ""));
    if (!advertise.includes(`.${spec.serviceName}`)) {
      errors.push(
        `${where}: --ha-advertise (TASKBOARD_HA_ADVERTISE) must name each pod under the ` +
          `headless Service, $(POD_NAME).${spec.serviceName}...:PORT: a pod's host name alone ` +
          "does not resolve from the other pods",
      );
    }
    for (const endpoint of haEndpoints(container).split(",").filter(Boolean)) {
      const { host, port } = splitHostPort(endpoint.trim());
      const labels = host.split(".");
      // pod.service (a StatefulSet member) or service; anything else is an etcd of your own.
      const service =
        named(objects, "Service", labels[1] ?? "") ?? named(objects, "Service", labels[0]);
      if (!service) continue;
      const servicePort = (service.spec?.ports ?? []).find((p) => p.port === port);
      if (!servicePort) {
        errors.push(
          `${where}: --ha-etcd-endpoints names ${endpoint}, but Service ` +
            `'${service.metadata.name}' has no port ${port}`,
        );
      }
    }
  }
}

// The worker's --scheduler must name a Service (short or cluster-local
// name) whose port leads to the scheduler's gRPC port.
function checkWorker(workload, objects, schedulers, errors) {
  const id = idOf(workload);
  for (const container of containersOf(workload)) {
    if (binaryOf(container) !== "taskboard-worker") continue;
    const where = `${id} container '${container.name}'`;
    const address = flagValue(container, "--scheduler", "TASKBOARD_SCHEDULER", "127.0.0.1:7233");
    const { host, port } = splitHostPort(address);
    const [serviceName, serviceNamespace] = host.split(".");
    const service = named(objects, "Service", serviceName);
    const namespace = workload.metadata?.namespace;
    if (!service || (serviceNamespace && namespace && serviceNamespace !== namespace)) {
      errors.push(`${where}: --scheduler=${address} names no Service of this deployment`);
    } else {
      const servicePort = (service.spec?.ports ?? []).find((p) => p.port === port);
      const target = schedulers.find((s) => selects(service.spec?.selector, podLabels(s)));
      if (!target) {
        errors.push(`${where}: Service '${serviceName}' does not select the scheduler's pods`);
      } else if (!servicePort) {
        errors.push(`${where}: Service '${serviceName}' has no port ${port}`);
      } else {
        const containerPort = findContainerPort(
          containersOf(target),
          servicePort.targetPort ?? servicePort.port,
        );
        if (containerPort?.name !== "grpc") {
          errors.push(`${where}: ${address} does not lead to the scheduler's 'grpc' port`);
        }
      }
    }
    const grace = Number(
      flagValue(
        container,
        "--drain-grace-seconds",
        "TASKBOARD_DRAIN_GRACE_SECONDS",
        DEFAULT_DRAIN_GRACE_SECONDS,
      ),
    );
    const termination = workload.spec.template.spec.terminationGracePeriodSeconds ?? 30;
    if (termination < grace + HAND_BACK_MARGIN_SECONDS) {
      errors.push(
        `${id}: terminationGracePeriodSeconds ${termination} must be at least ` +
          `--drain-grace-seconds ${grace} + ${HAND_BACK_MARGIN_SECONDS}: the kubelet kills ` +
          "a draining worker before it hands back its tasks",
      );
    }
  }
}

function checkServices(objects, errors) {
  for (const service of ofKind(objects, "Service")) {
    const targets = workloads(objects).filter((w) => selects(service.spec?.selector, podLabels(w)));
    if (targets.length === 0) {
      errors.push(`${idOf(service)}: its selector matches no pod template`);
      continue;
    }
    for (const port of service.spec?.ports ?? []) {
      for (const target of targets) {
        if (!findContainerPort(containersOf(target), port.targetPort ?? port.port)) {
          errors.push(
            `${idOf(service)}: port '${port.name}' targets ${JSON.stringify(port.targetPort)}, ` +
              `not a container port of ${idOf(target)}`,
          );
        }
      }
    }
  }
}

function checkDisruptionBudgets(objects, errors) {
  for (const budget of ofKind(objects, "PodDisruptionBudget")) {
    if (!workloads(objects).some((w) => selects(budget.spec?.selector, podLabels(w)))) {
      errors.push(`${idOf(budget)}: its selector matches no pod template`);
    }
  }
}

function checkNamespaces(objects, errors) {
  const namespaces = new Set(
    objects.filter((o) => o.kind !== "Namespace").map((o) => o.metadata?.namespace),
  );
  if (namespaces.size > 1) {
    errors.push(`objects are spread over namespaces ${[...namespaces].join(", ")}: use one`);
  }
  for (const namespace of ofKind(objects, "Namespace")) {
    if (!namespaces.has(namespace.metadata.name)) {
      errors.push(`${idOf(namespace)}: no object is in this namespace`);
    }
  }
}

export function workloadErrors(objects, helps) {
  const errors = [];
  checkNamespaces(objects, errors);
  for (const workload of workloads(objects)) checkPodTemplate(workload, objects, helps, errors);
  const schedulers = schedulerWorkloads(objects);
  if (schedulers.length !== 1) {
    errors.push(`expected one scheduler workload, found ${schedulers.length}`);
  }
  for (const scheduler of schedulers) checkScheduler(scheduler, objects, errors);
  for (const workload of workloads(objects)) checkWorker(workload, objects, schedulers, errors);
  checkServices(objects, errors);
  checkDisruptionBudgets(objects, errors);
  return errors;
}
