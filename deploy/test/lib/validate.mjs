// Validates one rendered overlay: every object against its schema, then the
// cross-references between them and against the real services (their flags
// and their /metrics), then its security settings (security_checks.mjs).

import { parseAllDocuments } from "yaml";

import { parseHelp } from "./flags.mjs";
import { mergeExpositions, parseExposition } from "./exposition.mjs";
import { adapterRuleMetrics, monitoringErrors, queryExpressions } from "./monitoring_checks.mjs";
import { promtoolErrors, ruleFile } from "./promtool.mjs";
import { schemaErrors } from "./models.mjs";
import { idOf } from "./objects.mjs";
import { securityErrors } from "./security_checks.mjs";
import { workloadErrors } from "./workload_checks.mjs";

// The objects of a multi-document YAML text (kubectl kustomize's output).
// Throws on YAML errors.
export function parseObjects(text) {
  const objects = [];
  for (const document of parseAllDocuments(text)) {
    if (document.errors.length > 0) throw new Error(`YAML: ${document.errors[0].message}`);
    const object = document.toJS();
    if (object !== null && object !== undefined) objects.push(object);
  }
  return objects;
}

// What the checks compare the manifests with, from the real binaries:
//   helpTexts:   {"taskboard-scheduler": "<--help output>", "taskboard-worker": ...}
//   expositions: [<scheduler /metrics text>, <worker /metrics text>]
//   adapterRules: the parsed prometheus-adapter rules file, or undefined
//   promtool:    path of promtool to check PromQL syntax with, or undefined
export function buildContext({ helpTexts, expositions, adapterRules, promtool }) {
  const helps = new Map(Object.entries(helpTexts).map(([name, text]) => [name, parseHelp(text)]));
  const exposed = mergeExpositions(expositions.map(parseExposition));
  const adapter = adapterRuleMetrics(adapterRules, exposed);
  const adapterExpressions = [
    ...(adapterRules?.externalRules ?? []),
    ...(adapterRules?.rules ?? []),
  ]
    .flatMap((rule) => [rule.seriesQuery, rule.metricsQuery])
    .filter(Boolean)
    .map((expr) => ({ where: "prometheus-adapter rule", expr }));
  return {
    helps,
    exposed,
    adapterMetrics: adapter.names,
    adapterErrors: adapter.errors,
    adapterExpressions,
    promtool,
  };
}

// Every error of a rendered overlay, as "Kind/name: what is wrong" lines;
// [] when it is fine. `profile`: "production" (TLS, tokens and
// NetworkPolicies required; the default) or "development" (overlays/dev:
// plaintext with --insecure allowed).
export function validateObjects(objects, context, { profile = "production" } = {}) {
  const errors = [...context.adapterErrors];
  if (objects.length === 0) errors.push("the overlay rendered no objects");
  const schemaValid = [];
  for (const object of objects) {
    const found = schemaErrors(object);
    for (const error of found) errors.push(`${idOf(object)}: ${error}`);
    if (found.length === 0) schemaValid.push(object);
  }
  // Cross-references only among objects that passed their schema: a
  // malformed one has its error already and would only add noise here.
  errors.push(...workloadErrors(schemaValid, context.helps));
  errors.push(...monitoringErrors(schemaValid, context.exposed, context.adapterMetrics));
  errors.push(...securityErrors(schemaValid, profile));
  if (context.promtool) {
    const expressions = [...queryExpressions(schemaValid), ...context.adapterExpressions];
    const rules = ruleFile(
      schemaValid.filter((object) => object.kind === "PrometheusRule"),
      expressions,
    );
    errors.push(...promtoolErrors(context.promtool, rules, expressions));
  }
  return errors;
}
