// Cross-references of the monitoring and autoscaling objects: monitors
// select something with the port they scrape, autoscalers target one worker
// Deployment each (never two on one, never the scheduler), and every series
// an alert, a scaler or the Grafana dashboard reads is served by the real
// scheduler or worker /metrics.

import { binaryOf, flagValue } from "./flags.mjs";
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
import { seriesErrors, taskboardSelectors, upSelectors } from "./promql.mjs";

// Services each ServiceMonitor selects: the Prometheus job of their targets
// is the Service name (no jobLabel set).
function scrapedServices(objects, errors) {
  const jobs = new Set();
  for (const monitor of ofKind(objects, "ServiceMonitor")) {
    const id = idOf(monitor);
    const services = ofKind(objects, "Service").filter((s) =>
      selects(monitor.spec?.selector, s.metadata?.labels ?? {}),
    );
    if (services.length === 0) errors.push(`${id}: its selector matches no Service`);
    for (const endpoint of monitor.spec?.endpoints ?? []) {
      const withPort = services.filter((s) =>
        (s.spec?.ports ?? []).some((p) => p.name === endpoint.port),
      );
      if (withPort.length === 0) {
        errors.push(`${id}: no selected Service has a port named '${endpoint.port}'`);
      }
      // Two Services with the port in front of the same pods: every sample
      // scraped twice, every sum() doubled.
      const pods = new Map();
      for (const service of withPort) {
        for (const workload of workloads(objects)) {
          if (!selects(service.spec?.selector, podLabels(workload))) continue;
          const other = pods.get(idOf(workload));
          if (other) {
            errors.push(
              `${id}: scrapes ${idOf(workload)} twice, through Services ${other} and ${service.metadata.name}`,
            );
          }
          pods.set(idOf(workload), service.metadata.name);
        }
      }
    }
    if (monitor.spec?.jobLabel === undefined) {
      for (const service of services) jobs.add(service.metadata.name);
    }
  }
  for (const monitor of ofKind(objects, "PodMonitor")) {
    const id = idOf(monitor);
    const targets = workloads(objects).filter((w) => selects(monitor.spec?.selector, podLabels(w)));
    if (targets.length === 0) errors.push(`${id}: its selector matches no pod template`);
    for (const endpoint of monitor.spec?.podMetricsEndpoints ?? []) {
      for (const target of targets) {
        if (!findContainerPort(containersOf(target), endpoint.port)) {
          errors.push(`${id}: ${idOf(target)} has no container port named '${endpoint.port}'`);
        }
      }
    }
  }
  return jobs;
}

// Errors of one expression: unknown series or labels, an up{job} that no
// ServiceMonitor produces, or a namespace matcher naming another namespace.
function expressionErrors(expr, where, context) {
  const errors = seriesErrors(expr, context.exposed, where, context.adapterMetrics);
  for (const { matchers } of upSelectors(expr)) {
    for (const { name, op, value } of matchers) {
      if (name === "job" && op === "=" && !context.jobs.has(value)) {
        errors.push(
          `${where}: up{job="${value}"} is scraped by no ServiceMonitor of this deployment`,
        );
      }
    }
  }
  if (context.namespace !== undefined) {
    const all = [...taskboardSelectors(expr), ...upSelectors(expr)].flatMap((s) => s.matchers);
    for (const { name, op, value } of all) {
      if (
        name === "namespace" &&
        op === "=" &&
        value !== context.namespace &&
        !value.startsWith("$")
      ) {
        errors.push(`${where}: reads namespace="${value}" but deploys to '${context.namespace}'`);
      }
    }
  }
  return errors;
}

// The --slots of the worker containers of `workload` (default 4).
function workerSlots(workload) {
  const worker = containersOf(workload).find((c) => binaryOf(c) === "taskboard-worker");
  return worker ? Number(flagValue(worker, "--slots", "TASKBOARD_SLOTS", 4)) : undefined;
}

function checkAutoscalers(objects, context, errors) {
  const scalers = [
    ...ofKind(objects, "ScaledObject"),
    ...ofKind(objects, "HorizontalPodAutoscaler"),
  ];
  const targetedBy = new Map();
  for (const scaler of scalers) {
    const id = idOf(scaler);
    const ref = scaler.spec?.scaleTargetRef ?? {};
    const target = named(objects, ref.kind ?? "Deployment", ref.name);
    if (!target) {
      errors.push(`${id}: scaleTargetRef ${ref.kind ?? "Deployment"}/${ref.name} is not rendered`);
      continue;
    }
    if (targetedBy.has(idOf(target))) {
      errors.push(
        `${id} and ${targetedBy.get(idOf(target))} both scale ${idOf(target)}: keep one autoscaler`,
      );
    }
    targetedBy.set(idOf(target), id);
    const slots = workerSlots(target);
    if (slots === undefined) {
      errors.push(`${id}: scales ${idOf(target)}, which runs no taskboard-worker`);
      continue;
    }
    const thresholds = [];
    for (const [index, trigger] of (scaler.spec?.triggers ?? []).entries()) {
      const where = `${id} trigger ${index}`;
      if (trigger.type !== "prometheus") continue;
      errors.push(...expressionErrors(trigger.metadata?.query ?? "", where, context));
      thresholds.push(Number(trigger.metadata?.threshold));
    }
    for (const [index, metric] of (scaler.spec?.metrics ?? []).entries()) {
      const where = `${id} metric ${index}`;
      if (metric.type !== "External") continue;
      const name = metric.external?.metric?.name ?? "";
      if (!context.adapterMetrics.has(name) && !context.exposed.samples.has(name)) {
        errors.push(`${where}: external metric '${name}' is neither served nor an adapter rule`);
      }
      thresholds.push(Number(metric.external?.target?.averageValue));
    }
    for (const threshold of thresholds) {
      if (threshold !== slots) {
        errors.push(`${id}: target ${threshold} per replica but the workers have --slots=${slots}`);
      }
    }
  }
}

function checkRules(objects, context, errors) {
  for (const rule of ofKind(objects, "PrometheusRule")) {
    for (const group of rule.spec?.groups ?? []) {
      for (const entry of group.rules ?? []) {
        const where = `${idOf(rule)} ${entry.alert ?? entry.record}`;
        errors.push(...expressionErrors(String(entry.expr), where, context));
        if (entry.alert && !entry.labels?.severity) errors.push(`${where}: no severity label`);
        if (entry.alert && !entry.annotations?.summary) errors.push(`${where}: no summary`);
      }
    }
  }
}

function dashboardExpressions(dashboard) {
  const found = [];
  const walk = (panels) => {
    for (const panel of panels ?? []) {
      for (const target of panel.targets ?? []) {
        if (target.expr) found.push({ title: panel.title, expr: target.expr });
      }
      walk(panel.panels);
    }
  };
  walk(dashboard.panels);
  return found;
}

// Grafana dashboards: ConfigMaps whose data holds *.json dashboards.
function checkDashboards(objects, context, errors) {
  for (const configMap of ofKind(objects, "ConfigMap")) {
    for (const [key, text] of Object.entries(configMap.data ?? {})) {
      if (!key.endsWith(".json")) continue;
      const where = `${idOf(configMap)} ${key}`;
      let dashboard;
      try {
        dashboard = JSON.parse(text);
      } catch (error) {
        errors.push(`${where}: not JSON: ${error.message}`);
        continue;
      }
      const expressions = dashboardExpressions(dashboard);
      if (expressions.length === 0) errors.push(`${where}: a dashboard without queries`);
      for (const { title, expr } of expressions) {
        const noVariables = { ...context, namespace: undefined };
        errors.push(...expressionErrors(expr, `${where} panel '${title}'`, noVariables));
      }
    }
  }
}

// [{where, expr}] of the queries outside PrometheusRules: KEDA triggers and
// Grafana panels.
export function queryExpressions(objects) {
  const found = [];
  for (const scaler of ofKind(objects, "ScaledObject")) {
    for (const [index, trigger] of (scaler.spec?.triggers ?? []).entries()) {
      if (trigger.type === "prometheus" && trigger.metadata?.query) {
        found.push({ where: `${idOf(scaler)} trigger ${index}`, expr: trigger.metadata.query });
      }
    }
  }
  for (const configMap of ofKind(objects, "ConfigMap")) {
    for (const [key, text] of Object.entries(configMap.data ?? {})) {
      if (!key.endsWith(".json")) continue;
      try {
        for (const { title, expr } of dashboardExpressions(JSON.parse(text))) {
          found.push({ where: `${idOf(configMap)} ${key} panel '${title}'`, expr });
        }
      } catch {
        // checkDashboards reports JSON errors.
      }
    }
  }
  return found;
}

// The external metric names an adapter rules file defines, and errors of
// its queries.
export function adapterRuleMetrics(rules, exposed) {
  const names = new Set();
  const errors = [];
  for (const rule of [...(rules?.externalRules ?? []), ...(rules?.rules ?? [])]) {
    const name = rule.name?.as;
    if (name) names.add(name);
    for (const field of ["seriesQuery", "metricsQuery"]) {
      if (rule[field]) {
        errors.push(...seriesErrors(rule[field], exposed, `adapter rule ${name} ${field}`));
      }
    }
  }
  return { names, errors };
}

export function monitoringErrors(objects, exposed, adapterMetrics) {
  const errors = [];
  const jobs = scrapedServices(objects, errors);
  const namespace = objects.find((o) => o.metadata?.namespace)?.metadata.namespace;
  const context = { exposed, adapterMetrics, jobs, namespace };
  checkAutoscalers(objects, context, errors);
  checkRules(objects, context, errors);
  checkDashboards(objects, context, errors);
  return errors;
}
