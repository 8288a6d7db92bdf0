// Small helpers over a rendered set of Kubernetes objects.

// "Kind/name" of an object, for messages.
export function idOf(object) {
  return `${object.kind}/${object.metadata?.name}`;
}

export function ofKind(objects, kind) {
  return objects.filter((object) => object.kind === kind);
}

export function named(objects, kind, name) {
  return objects.find((object) => object.kind === kind && object.metadata?.name === name);
}

// Deployments and StatefulSets.
export function workloads(objects) {
  return objects.filter((object) => object.kind === "Deployment" || object.kind === "StatefulSet");
}

export function podLabels(workload) {
  return workload.spec?.template?.metadata?.labels ?? {};
}

export function containersOf(workload) {
  return workload.spec?.template?.spec?.containers ?? [];
}

// Whether a plain label map selector (Service.spec.selector) or a
// LabelSelector ({matchLabels, matchExpressions}) selects `labels`. An empty
// selector selects nothing here: every selector of ours names its labels.
export function selects(selector, labels) {
  if (!selector) return false;
  const isLabelSelector = "matchLabels" in selector || "matchExpressions" in selector;
  const matchLabels = isLabelSelector ? (selector.matchLabels ?? {}) : selector;
  const expressions = isLabelSelector ? (selector.matchExpressions ?? []) : [];
  if (Object.keys(matchLabels).length === 0 && expressions.length === 0) return false;
  for (const [key, value] of Object.entries(matchLabels)) {
    if (labels[key] !== value) return false;
  }
  for (const { key, operator, values = [] } of expressions) {
    const has = key in labels;
    if (operator === "In" && !(has && values.includes(labels[key]))) return false;
    if (operator === "NotIn" && has && values.includes(labels[key])) return false;
    if (operator === "Exists" && !has) return false;
    if (operator === "DoesNotExist" && has) return false;
  }
  return true;
}

// The container port a Service/probe port reference resolves to: by name
// (a string) or by number.
export function findContainerPort(containers, reference) {
  for (const container of containers) {
    for (const port of container.ports ?? []) {
      if (
        typeof reference === "string" ? port.name === reference : port.containerPort === reference
      )
        return port;
    }
  }
  return undefined;
}
