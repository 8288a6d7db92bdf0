// Unit tests of lib/same_objects.mjs, which deploy.manifests uses to require
// that two kubectl versions render an overlay to the same objects: a real
// difference is named; a generated ConfigMap's hash suffix is not one.
//
//   node --test deploy/test/same_objects.test.mjs

import assert from "node:assert/strict";
import { test } from "node:test";

import { compareRenderings } from "./lib/same_objects.mjs";

// An overlay's objects as one kubectl renders them: the generated agents
// ConfigMap named with `hash`, and the worker Deployment mounting it.
function rendering(hash) {
  return [
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `taskboard-worker-agents-${hash}`, namespace: "taskboard" },
      data: { "echo-envelope.yaml": "name: echo-envelope\n" },
    },
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "taskboard-worker", namespace: "taskboard" },
      spec: {
        replicas: 2,
        template: {
          spec: {
            volumes: [{ name: "agents", configMap: { name: `taskboard-worker-agents-${hash}` } }],
          },
        },
      },
    },
    {
      apiVersion: "keda.sh/v1alpha1",
      kind: "ScaledObject",
      metadata: { name: "taskboard-worker", namespace: "taskboard" },
    },
  ];
}

const compare = (a, b) => compareRenderings(a, b, "kubectl A", "kubectl B");

test("OnlyTheHashSuffixDiffers_Same", () => {
  assert.deepEqual(compare(rendering("676fhcmc5d"), rendering("96t42tmbkg")), []);
});

test("FieldDiffers_NamesObjectAndPath", () => {
  const other = rendering("96t42tmbkg");
  other[1].spec.replicas = 1;
  assert.deepEqual(compare(rendering("676fhcmc5d"), other), [
    "Deployment/taskboard/taskboard-worker differs (kubectl A vs kubectl B) at " +
      ".spec.replicas: 2 vs 1",
  ]);
});

test("GeneratedDataDiffers_Named", () => {
  const other = rendering("96t42tmbkg");
  other[0].data["echo-envelope.yaml"] = "name: other\n";
  const errors = compare(rendering("676fhcmc5d"), other);
  assert.equal(errors.length, 1);
  assert.match(errors[0], /^ConfigMap\/taskboard\/taskboard-worker-agents-<hash> differs/);
});

// What kustomize v2 did with a `$patch: delete` on a custom kind: it kept
// the object, so one kubectl rendered two autoscalers.
test("ObjectOnlyInOneRendering_Named", () => {
  const withHpa = rendering("96t42tmbkg");
  withHpa.push({
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name: "taskboard-worker", namespace: "taskboard" },
  });
  const withoutKeda = rendering("676fhcmc5d").filter((o) => o.kind !== "ScaledObject");
  assert.deepEqual(compare(withoutKeda, withHpa), [
    "ScaledObject/taskboard/taskboard-worker: rendered by kubectl B only",
    "HorizontalPodAutoscaler/taskboard/taskboard-worker: rendered by kubectl B only",
  ]);
});

test("NamespaceDiffers_BothNamed", () => {
  const other = rendering("96t42tmbkg");
  other[2].metadata.namespace = "default";
  assert.deepEqual(compare(rendering("676fhcmc5d"), other), [
    "ScaledObject/taskboard/taskboard-worker: rendered by kubectl A only",
    "ScaledObject/default/taskboard-worker: rendered by kubectl B only",
  ]);
});
