#!/usr/bin/env node
// Validates rendered Kubernetes manifests (kubectl kustomize output) against
// their schemas and the real Taskboard binaries. Normally run by
// run_deploy_test.mjs; by hand:
//
//   node deploy/test/validate.mjs --rendered prod.yaml \
//     --binary-help taskboard-scheduler=scheduler-help.txt \
//     --binary-help taskboard-worker=worker-help.txt \
//     --metrics scheduler-metrics.txt --metrics worker-metrics.txt \
//     [--adapter-rules deploy/components/hpa/prometheus-adapter-rules.yaml] \
//     [--profile production|development]
//
// Exit 0: valid; 1: errors, one per line on stderr; 2: bad usage.

import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { parse } from "yaml";

import { buildContext, parseObjects, validateObjects } from "./lib/validate.mjs";

const USAGE =
  "usage: validate.mjs --rendered FILE... --binary-help BINARY=FILE... --metrics FILE... " +
  "[--adapter-rules FILE] [--promtool PATH] [--profile production|development]\n" +
  "  --rendered       kubectl kustomize output (multi-document YAML)\n" +
  "  --binary-help    taskboard-scheduler=FILE and taskboard-worker=FILE: their --help output\n" +
  "  --metrics        a /metrics scrape of the scheduler, of a worker\n" +
  "  --adapter-rules  prometheus-adapter rules defining the HPA's external metrics\n" +
  "  --promtool       check every PromQL expression's syntax with this promtool\n" +
  "  --profile        production (default: TLS, tokens, NetworkPolicies required) or\n" +
  "                   development (plaintext with --insecure allowed, as overlays/dev)";

function main() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        rendered: { type: "string", multiple: true },
        "binary-help": { type: "string", multiple: true },
        metrics: { type: "string", multiple: true },
        "adapter-rules": { type: "string" },
        promtool: { type: "string" },
        profile: { type: "string", default: "production" },
        help: { type: "boolean" },
      },
    }));
  } catch (error) {
    console.error(`${error.message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (!values.rendered?.length || !values["binary-help"]?.length || !values.metrics?.length) {
    console.error(USAGE);
    return 2;
  }
  const helpTexts = Object.fromEntries(
    values["binary-help"].map((entry) => {
      const [binary, file] = entry.split("=");
      return [binary, readFileSync(file, "utf8")];
    }),
  );
  const context = buildContext({
    helpTexts,
    expositions: values.metrics.map((file) => readFileSync(file, "utf8")),
    adapterRules: values["adapter-rules"]
      ? parse(readFileSync(values["adapter-rules"], "utf8"))
      : undefined,
    promtool: values.promtool,
  });
  let failed = false;
  for (const file of values.rendered) {
    const errors = validateObjects(parseObjects(readFileSync(file, "utf8")), context, {
      profile: values.profile,
    });
    for (const error of errors) console.error(`${file}: ${error}`);
    failed ||= errors.length > 0;
  }
  return failed ? 1 : 0;
}

process.exitCode = main();
