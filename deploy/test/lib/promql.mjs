// Finds the series a PromQL expression (or a prometheus-adapter query
// template) reads and checks them against what the services expose. This is
// no PromQL parser: Taskboard's series all start with `taskboard_`, so every
// such identifier must be a sample name, and the label names in the
// selector right after it must be labels of that family or target labels
// Prometheus adds when it scrapes.

const TASKBOARD_SELECTOR = /\b(taskboard_[a-zA-Z0-9_:]*)\s*(\{([^}]*)\})?/g;
const UP_SELECTOR = /\bup\s*\{([^}]*)\}/g;
const MATCHER = /([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g;

// Labels that Prometheus (Operator) attaches to every scraped series.
export const TARGET_LABELS = new Set([
  "namespace",
  "pod",
  "container",
  "service",
  "endpoint",
  "job",
  "instance",
]);

// [{name, op, value}] of a selector body such as `a="x",b!~"y"`.
export function matchersOf(body) {
  const cleaned = (body ?? "").replaceAll("<<.LabelMatchers>>", "");
  return [...cleaned.matchAll(MATCHER)].map(([, name, op, value]) => ({ name, op, value }));
}

// [{metric, matchers}] of every taskboard_ selector in `expr`.
export function taskboardSelectors(expr) {
  return [...expr.matchAll(TASKBOARD_SELECTOR)].map((match) => ({
    metric: match[1],
    matchers: matchersOf(match[3]),
  }));
}

// [{matchers}] of every `up{...}` selector in `expr`.
export function upSelectors(expr) {
  return [...expr.matchAll(UP_SELECTOR)].map((match) => ({ matchers: matchersOf(match[1]) }));
}

// Errors for the series `expr` reads that `exposed` (parseExposition) lacks;
// `where` names the expression in messages. `extraMetrics` are names defined
// elsewhere (an adapter's external metrics).
export function seriesErrors(expr, exposed, where, extraMetrics = new Set()) {
  const errors = [];
  const selectors = taskboardSelectors(expr);
  if (selectors.length === 0 && upSelectors(expr).length === 0) {
    errors.push(`${where}: reads no taskboard_ series (expression: ${expr})`);
  }
  for (const { metric, matchers } of selectors) {
    if (extraMetrics.has(metric)) continue;
    const family = exposed.samples.get(metric);
    if (family === undefined) {
      const histogram = exposed.families.get(metric);
      const hint =
        histogram?.type === "histogram"
          ? ` (a histogram: use ${metric}_bucket, _sum or _count)`
          : "";
      errors.push(`${where}: ${metric} is not served by the scheduler or worker /metrics${hint}`);
      continue;
    }
    for (const { name } of matchers) {
      if (TARGET_LABELS.has(name) || family.labels.has(name)) continue;
      if (name === "le" && family.type === "histogram") continue;
      const known = [...family.labels].join(", ") || "none";
      errors.push(`${where}: ${metric} has no label '${name}' (its labels: ${known})`);
    }
  }
  return errors;
}
