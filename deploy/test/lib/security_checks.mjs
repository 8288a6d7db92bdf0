// The security settings of a rendered overlay (docs/security.md#production-defaults):
//   every overlay: containers run as non-root with a read-only root
//     filesystem and no privilege escalation; the scheduler would start
//     (a --listen on all interfaces needs --auth-tokens or --insecure); no
//     grpc probe on a TLS port (the kubelet's speaks plaintext);
//   profile "production" (every overlay but dev): no --insecure; the
//     scheduler serves TLS and requires tokens, from files on Secret volumes;
//     the workers trust a CA from a Secret and take their token from a
//     Secret; NetworkPolicies admit to the scheduler's gRPC port only the
//     workers and pods labelled taskboard.dev/client=true (and, replicated,
//     the other replicas), to its metrics port only Prometheus, and nothing
//     else; a replicated scheduler's follower takes its token from a Secret
//     and its CA from a Secret volume; every other workload (overlays/ha's
//     etcd) is selected by a NetworkPolicy that admits no open source.

import { binaryOf, flagValue, parseArgs, splitHostPort } from "./flags.mjs";
import { haEndpoints } from "./workload_checks.mjs";
import {
  containersOf,
  findContainerPort,
  idOf,
  ofKind,
  podLabels,
  selects,
  workloads,
} from "./objects.mjs";

export const CLIENT_LABEL = "taskboard.dev/client";
const PROMETHEUS_NAMESPACE = "monitoring";
const PROMETHEUS_LABELS = { "app.kubernetes.io/name": "prometheus" };
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/i;

export const PROFILES = ["production", "development"];

// Whether a boolean flag is on, as a flag or its TASKBOARD_* variable.
function flagOn(container, flag, envName) {
  const value = flagValue(container, flag, envName, false);
  return value === true || /^(1|true|yes|on)$/i.test(String(value));
}

function checkContainerSecurity(workload, errors) {
  const podContext = workload.spec?.template?.spec?.securityContext ?? {};
  const spec = workload.spec?.template?.spec ?? {};
  for (const container of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    const where = `${idOf(workload)} container '${container.name}'`;
    const context = container.securityContext ?? {};
    if (context.readOnlyRootFilesystem !== true) {
      errors.push(
        `${where}: set securityContext.readOnlyRootFilesystem: true ` +
          "(mount an emptyDir where it must write)",
      );
    }
    if ((context.runAsNonRoot ?? podContext.runAsNonRoot) !== true) {
      errors.push(`${where}: runAsNonRoot must be true (the images run as user 10001)`);
    }
    if (context.allowPrivilegeEscalation !== false) {
      errors.push(`${where}: set securityContext.allowPrivilegeEscalation: false`);
    }
  }
}

// The volume a file path lies on, or undefined.
function volumeOf(workload, container, path) {
  const mount = (container.volumeMounts ?? []).find(
    (m) => path === m.mountPath || String(path).startsWith(`${m.mountPath}/`),
  );
  return (workload.spec?.template?.spec?.volumes ?? []).find((v) => v.name === mount?.name);
}

// `flag` is set and names a file on a volume from a Secret.
function requireSecretFile(workload, container, where, flag, envName, errors) {
  const path = flagValue(container, flag, envName, undefined);
  if (path === undefined || path === "" || path === true) {
    errors.push(`${where}: production needs ${flag} (${envName}), a file from a Secret`);
    return;
  }
  const volume = volumeOf(workload, container, path);
  const fromSecret =
    volume?.secret?.secretName ||
    (volume?.projected?.sources ?? []).some((source) => source.secret?.name);
  if (!fromSecret) {
    errors.push(`${where}: ${flag}=${path} is not on a volume from a Secret`);
  }
}

function checkScheduler(workload, container, profile, errors) {
  const where = `${idOf(workload)} container '${container.name}'`;
  const listen = flagValue(container, "--listen", "TASKBOARD_LISTEN", "127.0.0.1:7233");
  const tokens = flagValue(container, "--auth-tokens", "TASKBOARD_AUTH_TOKENS", "");
  const insecure = flagOn(container, "--insecure", "TASKBOARD_INSECURE");
  const reachable = !LOOPBACK.test(splitHostPort(listen).host);
  if (reachable && !tokens && !insecure) {
    errors.push(
      `${where}: the scheduler refuses to start: --listen=${listen} with neither ` +
        "--auth-tokens nor --insecure (TASKBOARD_INSECURE)",
    );
  }
  const tls = Boolean(flagValue(container, "--tls-cert", "TASKBOARD_TLS_CERT", ""));
  const grpcPort = findContainerPort([container], "grpc");
  for (const kind of ["startupProbe", "livenessProbe", "readinessProbe"]) {
    const port = container[kind]?.grpc?.port;
    if (tls && port !== undefined && (port === grpcPort?.containerPort || port === "grpc")) {
      errors.push(
        `${where}: ${kind} is a grpc probe on the TLS port: the kubelet's grpc probe speaks ` +
          "plaintext; probe /healthz on http-metrics",
      );
    }
  }
  if (profile !== "production") return;
  if (insecure) errors.push(`${where}: --insecure (TASKBOARD_INSECURE) in production`);
  requireSecretFile(workload, container, where, "--auth-tokens", "TASKBOARD_AUTH_TOKENS", errors);
  requireSecretFile(workload, container, where, "--tls-cert", "TASKBOARD_TLS_CERT", errors);
  requireSecretFile(workload, container, where, "--tls-key", "TASKBOARD_TLS_KEY", errors);
  if (haEndpoints(container) === "") return;
  // A follower's credentials for the leader's replication stream.
  requireSecretFile(workload, container, where, "--ha-tls-ca", "TASKBOARD_HA_TLS_CA", errors);
  requireSecretToken(container, where, "--ha-token", "TASKBOARD_HA_TOKEN", errors);
}

// `envName` comes from a Secret (secretKeyRef, not optional) and `flag` is
// not on the command line, where ps shows it.
function requireSecretToken(container, where, flag, envName, errors) {
  const entry = (container.env ?? []).find((e) => e.name === envName);
  const secretRef = entry?.valueFrom?.secretKeyRef;
  if (parseArgs(container.args).has(flag)) {
    errors.push(`${where}: ${flag} on the command line shows in ps: use ${envName}`);
  }
  if (!secretRef?.name || !secretRef?.key) {
    errors.push(`${where}: production needs ${envName} from a Secret (secretKeyRef)`);
  } else if (secretRef.optional) {
    errors.push(`${where}: ${envName}'s secretKeyRef must not be optional`);
  }
}

function checkWorker(workload, container, profile, mutualTls, errors) {
  const where = `${idOf(workload)} container '${container.name}'`;
  if (profile !== "production") return;
  if (flagOn(container, "--insecure", "TASKBOARD_INSECURE")) {
    errors.push(`${where}: --insecure (TASKBOARD_INSECURE) in production`);
  }
  requireSecretFile(workload, container, where, "--tls-ca", "TASKBOARD_TLS_CA", errors);
  if (mutualTls) {
    requireSecretFile(workload, container, where, "--tls-cert", "TASKBOARD_TLS_CERT", errors);
    requireSecretFile(workload, container, where, "--tls-key", "TASKBOARD_TLS_KEY", errors);
  }
  requireSecretToken(container, where, "--token", "TASKBOARD_TOKEN", errors);
}

// Whether `port` (a NetworkPolicy port: number or name) is `containerPort`.
function samePort(port, containerPort) {
  return port === containerPort.containerPort || port === containerPort.name;
}

// The peers a policy admits to `containerPort` of the pods it selects;
// "everyone" when a rule admits any source.
function peersAdmittedTo(policies, containerPort) {
  const peers = [];
  for (const policy of policies) {
    for (const rule of policy.spec?.ingress ?? []) {
      const ports = rule.ports ?? [];
      const matches = (p) => p.port === undefined || samePort(p.port, containerPort);
      if (ports.length > 0 && !ports.some(matches)) continue;
      if (!rule.from || rule.from.length === 0) {
        peers.push({ everyone: true, policy });
        continue;
      }
      for (const peer of rule.from) peers.push({ ...peer, policy });
    }
  }
  return peers;
}

function isEmptySelector(selector) {
  return (
    selector !== undefined &&
    Object.keys(selector.matchLabels ?? {}).length === 0 &&
    (selector.matchExpressions ?? []).length === 0
  );
}

// A peer that admits more than a labelled set of pods: everyone, an
// ipBlock, or an empty selector (every pod, every namespace).
function openPeer(peer) {
  if (peer.everyone) return "any source";
  if (peer.ipBlock) return `ipBlock ${peer.ipBlock.cidr}`;
  if (isEmptySelector(peer.podSelector) && !peer.namespaceSelector) {
    return "every pod of the namespace";
  }
  const anyPod = !peer.podSelector || isEmptySelector(peer.podSelector);
  if (isEmptySelector(peer.namespaceSelector) && anyPod) {
    return "every pod of every namespace";
  }
  return undefined;
}

// The Ingress NetworkPolicies selecting `workload`'s pods.
function policiesSelecting(objects, workload) {
  return ofKind(objects, "NetworkPolicy").filter(
    (policy) =>
      selects(policy.spec?.podSelector, podLabels(workload)) &&
      (policy.spec?.policyTypes ?? ["Ingress"]).includes("Ingress"),
  );
}

// A workload that is neither scheduler nor worker (overlays/ha's etcd): some
// policy selects it, and none admits an open source to any of its ports.
function checkDependencyPolicies(objects, workload, errors) {
  const policies = policiesSelecting(objects, workload);
  if (policies.length === 0) {
    errors.push(`${idOf(workload)}: production needs a NetworkPolicy selecting its pods`);
    return;
  }
  for (const port of containersOf(workload).flatMap((container) => container.ports ?? [])) {
    for (const peer of peersAdmittedTo(policies, port)) {
      const open = openPeer(peer);
      if (open) errors.push(`${idOf(peer.policy)}: admits ${open} to port '${port.name}'`);
    }
  }
}

function checkNetworkPolicies(objects, scheduler, workers, errors) {
  const policies = policiesSelecting(objects, scheduler);
  const replicated = containersOf(scheduler).some((container) => haEndpoints(container) !== "");
  if (policies.length === 0) {
    errors.push(
      `${idOf(scheduler)}: production needs a NetworkPolicy selecting the scheduler's pods ` +
        "(deploy/prod-base/networkpolicy.yaml)",
    );
    return;
  }
  const containers = containersOf(scheduler);
  const grpc = findContainerPort(containers, "grpc");
  const metrics = findContainerPort(containers, "http-metrics");
  const where = `NetworkPolicy selecting ${idOf(scheduler)}`;
  for (const port of [grpc, metrics].filter(Boolean)) {
    for (const peer of peersAdmittedTo(policies, port)) {
      const open = openPeer(peer);
      if (open) {
        errors.push(`${idOf(peer.policy)}: admits ${open} to port '${port.name}'`);
      }
    }
  }
  if (grpc) {
    const peers = peersAdmittedTo(policies, grpc).filter((peer) => !peer.namespaceSelector);
    for (const worker of workers) {
      if (!peers.some((peer) => selects(peer.podSelector, podLabels(worker)))) {
        errors.push(`${where}: port 'grpc' does not admit the workers of ${idOf(worker)}`);
      }
    }
    const client = { [CLIENT_LABEL]: "true" };
    if (!peers.some((peer) => selects(peer.podSelector, client))) {
      errors.push(`${where}: port 'grpc' does not admit clients labelled ${CLIENT_LABEL}: "true"`);
    }
    // Followers stream the leader's writes over its gRPC port.
    const admitsReplicas = (peer) => replicated && selects(peer.podSelector, podLabels(scheduler));
    if (replicated && !peers.some(admitsReplicas)) {
      errors.push(
        `${where}: port 'grpc' does not admit the other replicas: followers stream the ` +
          "leader's writes from it",
      );
    }
    for (const peer of peersAdmittedTo(policies, grpc)) {
      const labels = peer.podSelector?.matchLabels ?? {};
      const admitsWorkers = workers.some((w) => selects(peer.podSelector, podLabels(w)));
      if (
        !peer.everyone &&
        !admitsWorkers &&
        !admitsReplicas(peer) &&
        labels[CLIENT_LABEL] !== "true" &&
        !openPeer(peer)
      ) {
        const { policy, ...selectors } = peer;
        errors.push(
          `${idOf(policy)}: port 'grpc' admits ${JSON.stringify(selectors)}, ` +
            `neither the workers nor clients labelled ${CLIENT_LABEL}` +
            (replicated ? " nor the other replicas" : ""),
        );
      }
    }
  }
  if (metrics) {
    const prometheus = peersAdmittedTo(policies, metrics).some(
      (peer) =>
        selects(peer.namespaceSelector, {
          "kubernetes.io/metadata.name": PROMETHEUS_NAMESPACE,
        }) && selects(peer.podSelector, PROMETHEUS_LABELS),
    );
    if (!prometheus) {
      errors.push(
        `${where}: port 'http-metrics' does not admit Prometheus (pods ` +
          `app.kubernetes.io/name=prometheus in namespace ${PROMETHEUS_NAMESPACE})`,
      );
    }
  }
}

export function securityErrors(objects, profile = "production") {
  const errors = [];
  if (!PROFILES.includes(profile)) {
    return [`unknown profile '${profile}': one of ${PROFILES.join(", ")}`];
  }
  const schedulers = [];
  const workers = [];
  let mutualTls = false;
  for (const workload of workloads(objects)) {
    checkContainerSecurity(workload, errors);
    for (const container of containersOf(workload)) {
      if (binaryOf(container) === "taskboard-scheduler") {
        schedulers.push(workload);
        mutualTls ||= Boolean(
          flagValue(container, "--tls-client-ca", "TASKBOARD_TLS_CLIENT_CA", ""),
        );
        checkScheduler(workload, container, profile, errors);
      }
    }
  }
  for (const workload of workloads(objects)) {
    for (const container of containersOf(workload)) {
      if (binaryOf(container) !== "taskboard-worker") continue;
      workers.push(workload);
      checkWorker(workload, container, profile, mutualTls, errors);
    }
  }
  for (const policy of ofKind(objects, "NetworkPolicy")) {
    if (!workloads(objects).some((w) => selects(policy.spec?.podSelector, podLabels(w)))) {
      errors.push(`${idOf(policy)}: its podSelector matches no pod template`);
    }
  }
  if (profile === "production") {
    for (const scheduler of schedulers) checkNetworkPolicies(objects, scheduler, workers, errors);
    for (const workload of workloads(objects)) {
      if (schedulers.includes(workload) || workers.includes(workload)) continue;
      checkDependencyPolicies(objects, workload, errors);
    }
  }
  return errors;
}
