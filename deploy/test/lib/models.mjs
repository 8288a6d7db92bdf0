// The kinds deploy/ may render, each with the model class that validates it
// against its schema (kubernetes-models and its KEDA / Prometheus Operator
// packages). A kind missing here fails the test: add it with its model once
// a manifest needs it, so no object reaches a cluster unchecked.

import { ConfigMap, Namespace, Secret, Service, ServiceAccount } from "kubernetes-models/v1";
import { Deployment, StatefulSet } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1";
import { ScaledObject } from "@kubernetes-models/keda/keda.sh/v1alpha1";
import {
  PodMonitor,
  PrometheusRule,
  ServiceMonitor,
} from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";

const MODELS = [
  ConfigMap,
  Namespace,
  Secret,
  Service,
  ServiceAccount,
  Deployment,
  StatefulSet,
  HorizontalPodAutoscaler,
  PodDisruptionBudget,
  NetworkPolicy,
  ScaledObject,
  PodMonitor,
  PrometheusRule,
  ServiceMonitor,
];

const BY_TYPE = new Map(MODELS.map((model) => [`${model.apiVersion}/${model.kind}`, model]));

// "apiVersion/kind" of an object, e.g. "apps/v1/Deployment".
export function typeOf(object) {
  return `${object?.apiVersion}/${object?.kind}`;
}

// The errors of one object's schema validation: [] when it is valid.
export function schemaErrors(object) {
  const model = BY_TYPE.get(typeOf(object));
  if (model === undefined) {
    return [
      `unknown kind ${typeOf(object)}: deploy/test knows ${[...BY_TYPE.keys()].join(", ")}; ` +
        "add its model class to deploy/test/lib/models.mjs",
    ];
  }
  try {
    new model(object).validate();
  } catch (error) {
    return [`schema: ${error.message}`];
  }
  if (!object.metadata?.name) return ["metadata.name is missing"];
  return [];
}
