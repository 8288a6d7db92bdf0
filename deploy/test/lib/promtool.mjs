// PromQL syntax, checked by the real promtool (Debian package prometheus):
// every alert keeps its own rule, and the other expressions (KEDA queries,
// adapter rules, Grafana panels) become recording rules of one file, with
// Grafana's and the adapter's template variables filled in.

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";

// An expression with template variables replaced by sample values.
export function concreteExpr(expr) {
  return String(expr)
    .replaceAll(",<<.LabelMatchers>>", ',namespace="x"')
    .replaceAll("<<.LabelMatchers>>", 'namespace="x"')
    .replaceAll("$__rate_interval", "5m")
    .replaceAll("$__interval", "1m")
    .replaceAll(/\$\{?[a-zA-Z_]+\}?/g, "x");
}

// The rule groups to check: the PrometheusRules' own groups, plus one group
// of `expressions` ([{where, expr}]) as recording rules.
export function ruleFile(prometheusRules, expressions) {
  const groups = prometheusRules.flatMap((rule) => rule.spec?.groups ?? []);
  if (expressions.length > 0) {
    groups.push({
      name: "deploy-test-expressions",
      rules: expressions.map(({ expr }, index) => ({
        record: `deploy_test:expr_${index}`,
        expr: concreteExpr(expr),
      })),
    });
  }
  return { groups };
}

// promtool's complaints ([] when none), or a thrown Error when it cannot run.
// `expressions` (as given to ruleFile) name the recording rules in messages.
export function promtoolErrors(promtool, rules, expressions = []) {
  if (rules.groups.length === 0) return [];
  const work = mkdtempSync(join(tmpdir(), "taskboard-promtool-"));
  try {
    const file = join(work, "rules.yaml");
    writeFileSync(file, stringify(rules));
    const result = spawnSync(promtool, ["check", "rules", file], { encoding: "utf8" });
    if (result.error) throw new Error(`cannot run ${promtool}: ${result.error.message}`);
    if (result.status === 0) return [];
    const output = (result.stdout + result.stderr)
      .trim()
      .replaceAll(
        /"deploy_test:expr_(\d+)"/g,
        (all, index) => expressions[Number(index)]?.where ?? all,
      );
    return [`promtool check rules: ${output}`];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
