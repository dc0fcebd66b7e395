// kstatus rules, one named case per branch. Messages are kstatus'/kpt's exact strings.
//
// The cases are tables: a row names its case, gives the expected status, message (and reason, and the clock where it
// matters), then the object. The builders below write what every object of a kind shares (apiVersion, kind, name) and
// the status blocks rows repeat (conditions, a settled rollout's counters), so a row shows only what makes its case
// different. A malformed object stays YAML text: how it is written is what the case is about.

import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { KubeObject, ObjectMeta } from "../../src/model/kube-object.js";
import type { KStatus } from "../../src/model/events.js";
import { computeStatus } from "../../src/status/compute-status.js";

interface Case {
  name: string;
  object: KubeObject;
  status: KStatus;
  message: string;
  reason?: string;
  now?: string;
}

/** An object's spec and status (left out when not given); every other field goes into its metadata, after the name. */
interface Parts {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  [metadataField: string]: unknown;
}

function kube(apiVersion: string, kind: string, name: string, { spec, status, ...metadata }: Parts = {}): KubeObject {
  return {
    apiVersion,
    kind,
    metadata: { name, ...metadata } as ObjectMeta,
    ...(spec === undefined ? {} : { spec }),
    ...(status === undefined ? {} : { status }),
  };
}

/** One kind's objects: its apiVersion and kind, named `name` unless a row gives another. */
const builder = (apiVersion: string, kind: string, name: string) => (parts?: Parts) => kube(apiVersion, kind, name, parts);
const widget = builder("example.com/v1", "Widget", "w");
const deployment = builder("apps/v1", "Deployment", "d");
const statefulSet = builder("apps/v1", "StatefulSet", "s");
const daemonSet = builder("apps/v1", "DaemonSet", "ds");
const replicaSet = builder("apps/v1", "ReplicaSet", "rs");
const pod = builder("v1", "Pod", "p");
const job = builder("batch/v1", "Job", "j");
const configMap = builder("v1", "ConfigMap", "c");
const secret = builder("v1", "Secret", "s");
const namespace = builder("v1", "Namespace", "ns");
const pvc = builder("v1", "PersistentVolumeClaim", "pvc");
const service = builder("v1", "Service", "svc");
const pdb = builder("policy/v1", "PodDisruptionBudget", "pdb");
const crd = builder("apiextensions.k8s.io/v1", "CustomResourceDefinition", "widgets.example.com");
const bucket = builder("storage.cnrm.cloud.google.com/v1beta1", "StorageBucket", "b");
const connectorContext = builder("core.cnrm.cloud.google.com/v1beta1", "ConfigConnectorContext", "ccc");

const fromYaml = (text: string) => parse(text) as KubeObject;

/** A status condition; reason and message only when given. */
function cond(type: string, status: string, reason?: string, message?: string) {
  return { type, status, ...(reason === undefined ? {} : { reason }), ...(message === undefined ? {} : { message }) };
}

/** Every replica counter of a settled rollout at n; a row overrides the one that lags. */
const deploymentReplicas = (n: number) => ({ replicas: n, updatedReplicas: n, availableReplicas: n, readyReplicas: n });
const replicaSetReplicas = (n: number) => ({ replicas: n, fullyLabeledReplicas: n, availableReplicas: n, readyReplicas: n });
const daemonSetScheduled = (n: number) => ({
  desiredNumberScheduled: n,
  currentNumberScheduled: n,
  updatedNumberScheduled: n,
  numberAvailable: n,
  numberReady: n,
});

const waiting = (name: string, reason: string) => ({ name, state: { waiting: { reason } } });

const CREATED = "2024-05-01T10:00:00Z";

const generic: Case[] = [
  { name: "custom resource without status is Current", status: "Current", message: "Resource is current", object: widget({ generation: 1 }) },
  { name: "deletionTimestamp makes any object Terminating, before kind rules", status: "Terminating", message: "Resource scheduled for deletion",
    object: deployment({ generation: 2, deletionTimestamp: "2024-05-01T10:00:00Z", status: { observedGeneration: 1 } }) },
  { name: "custom resource with observedGeneration behind", status: "InProgress",
    message: "Widget generation is 2, but latest observed generation is 1", reason: "LatestGenerationNotObserved",
    object: widget({ generation: 2, status: { observedGeneration: 1 } }) },
  { name: "generation mismatch wins over the Deployment rule", status: "InProgress", message: "Deployment generation is 3, but latest observed generation is 2",
    object: deployment({ generation: 3, spec: { replicas: 1 }, status: { observedGeneration: 2, ...deploymentReplicas(1) } }) },
  { name: "absent observedGeneration is not a mismatch", status: "Current", message: "Resource is current",
    object: widget({ generation: 5, status: { phase: "Whatever" } }) },
  { name: "Reconciling=True is InProgress with its message", status: "InProgress", message: "creating bucket", reason: "Provisioning",
    object: widget({ generation: 1, status: { observedGeneration: 1, conditions: [cond("Reconciling", "True", "Provisioning", "creating bucket")] } }) },
  { name: "Stalled=True is Failed with its message", status: "Failed", message: "quota exceeded", reason: "QuotaExceeded",
    object: widget({ generation: 1, status: { conditions: [cond("Stalled", "True", "QuotaExceeded", "quota exceeded")] } }) },
  { name: "Reconciling=False and Stalled=False decide nothing", status: "Current", message: "Resource is current",
    object: widget({ status: { conditions: [cond("Reconciling", "False"), cond("Stalled", "False")] } }) },
  { name: "Stalled=True wins over a kind rule", status: "Failed", message: "broken",
    object: configMap({ status: { conditions: [cond("Stalled", "True", "Broken", "broken")] } }) },
  { name: "Ready=True on a custom resource is Current", status: "Current", message: "Resource is Ready",
    object: widget({ generation: 1, status: { conditions: [cond("Ready", "True", "AllOk", "All looks ok")] } }) },
  { name: "Ready=False on a custom resource is InProgress with its message", status: "InProgress", message: "waiting for backend", reason: "NotReadyYet",
    object: widget({ generation: 1, status: { observedGeneration: 1, conditions: [cond("Ready", "False", "NotReadyYet", "waiting for backend")] } }) },
  { name: "Ready=Unknown on a custom resource is InProgress", status: "InProgress", message: "not checked yet",
    object: widget({ status: { conditions: [cond("Ready", "Unknown", "Pending", "not checked yet")] } }) },
  { name: "Ready condition is ignored when a kind rule exists", status: "Current", message: "Resource is always ready",
    object: secret({ status: { conditions: [{ type: "Ready", status: "False", message: "nope" }] } }) },
  { name: "other conditions on a custom resource are ignored", status: "Current", message: "Resource is current",
    object: widget({ status: { conditions: [cond("SomeCondition", "False")] } }) },
  { name: "Namespace uses the generic rules", status: "Current", message: "Resource is current", object: namespace({ status: { phase: "Active" } }) },
  { name: "Namespace being deleted is Terminating", status: "Terminating", message: "Resource scheduled for deletion",
    object: namespace({ deletionTimestamp: "2024-05-01T10:00:00Z", status: { phase: "Terminating" } }) },
];

const malformed: Case[] = [
  {
    name: "malformed: status is a string",
    object: fromYaml(`
apiVersion: example.com/v1
kind: Widget
metadata: { name: w, generation: 1 }
status: broken`),
    status: "Unknown",
    message: "looking up status.observedGeneration from resource: .status is a string, expected a map",
  },
  {
    name: "malformed: generation is a string",
    object: fromYaml(`
apiVersion: example.com/v1
kind: Widget
metadata: { name: w, generation: "2" }`),
    status: "Unknown",
    message: "looking up metadata.generation from resource: .metadata.generation is a string, expected an integer",
  },
  {
    name: "malformed: conditions is not a list",
    object: fromYaml(`
apiVersion: apps/v1
kind: Deployment
metadata: { name: d }
status: { conditions: yes-please }`),
    status: "Unknown",
    message: "reading status.conditions: expected a list, got a string",
  },
  {
    name: "malformed: condition status is a boolean",
    object: fromYaml(`
apiVersion: example.com/v1
kind: Widget
metadata: { name: w }
status:
  conditions:
  - { type: Ready, status: true }`),
    status: "Unknown",
    message: "reading status.conditions[0].status: expected a string, got a boolean",
  },
  {
    name: "malformed: containerStatuses is a map",
    object: fromYaml(`
apiVersion: v1
kind: Pod
metadata: { name: p }
status: { phase: Running, containerStatuses: { a: 1 } }`),
    status: "Unknown",
    message: "reading status.containerStatuses: expected a list, got a map",
  },
  {
    name: "mistyped counters fall back to defaults, as kstatus' GetIntField",
    object: fromYaml(`
apiVersion: apps/v1
kind: Deployment
metadata: { name: d }
spec: { replicas: "three" }
status:
  replicas: 1
  updatedReplicas: 1
  readyReplicas: 1
  availableReplicas: 1
  conditions:
  - { type: Available, status: "True" }`),
    status: "Current",
    message: "Deployment is available. Replicas: 1",
  },
];

const deployments: Case[] = [
  { name: "Deployment: progress deadline exceeded is Failed", status: "Failed", message: "Progress deadline exceeded", reason: "ProgressDeadlineExceeded",
    object: deployment({
      generation: 1,
      spec: { replicas: 3, progressDeadlineSeconds: 600 },
      status: {
        observedGeneration: 1,
        replicas: 3,
        updatedReplicas: 1,
        conditions: [cond("Progressing", "False", "ProgressDeadlineExceeded", 'ReplicaSet "d-1" has timed out progressing.')],
      },
    }) },
  { name: "Deployment: without status waits for replicas (spec defaults to 1)", status: "InProgress", message: "Replicas: 0/1", reason: "LessReplicas",
    object: deployment({ generation: 1 }) },
  { name: "Deployment: fewer replicas than spec", status: "InProgress", message: "Replicas: 1/3",
    object: deployment({ generation: 1, spec: { replicas: 3 }, status: { observedGeneration: 1, replicas: 1 } }) },
  { name: "Deployment: fewer updated replicas than spec", status: "InProgress", message: "Updated: 2/3", reason: "LessUpdated",
    object: deployment({ generation: 1, spec: { replicas: 3 }, status: { observedGeneration: 1, replicas: 3, updatedReplicas: 2 } }) },
  { name: "Deployment: old pods pending termination", status: "InProgress", message: "Pending termination: 1", reason: "ExtraPods",
    object: deployment({ generation: 1, spec: { replicas: 3 }, status: { observedGeneration: 1, replicas: 4, updatedReplicas: 3 } }) },
  { name: "Deployment: updated replicas not yet available", status: "InProgress", message: "Available: 1/3", reason: "LessAvailable",
    object: deployment({
      generation: 1,
      spec: { replicas: 3 },
      status: { observedGeneration: 1, ...deploymentReplicas(3), availableReplicas: 1, readyReplicas: 1 },
    }) },
  { name: "Deployment: fewer ready replicas than spec", status: "InProgress", message: "Ready: 2/3", reason: "LessReady",
    object: deployment({ generation: 1, spec: { replicas: 3 }, status: { observedGeneration: 1, ...deploymentReplicas(3), readyReplicas: 2 } }) },
  { name: "Deployment: deadline set but new ReplicaSet not reported available", status: "InProgress", message: "ReplicaSet not Available",
    reason: "ReplicaSetNotAvailable",
    object: deployment({
      generation: 1,
      spec: { replicas: 1, progressDeadlineSeconds: 600 },
      status: { observedGeneration: 1, ...deploymentReplicas(1), conditions: [cond("Progressing", "True", "ReplicaSetUpdated"), cond("Available", "True")] },
    }) },
  { name: "Deployment: Available condition not True", status: "InProgress", message: "Deployment not Available", reason: "DeploymentNotAvailable",
    object: deployment({
      generation: 1,
      spec: { replicas: 1, progressDeadlineSeconds: 600 },
      status: {
        observedGeneration: 1,
        ...deploymentReplicas(1),
        conditions: [cond("Progressing", "True", "NewReplicaSetAvailable"), cond("Available", "False", "MinimumReplicasUnavailable")],
      },
    }) },
  { name: "Deployment: available with replica count", status: "Current", message: "Deployment is available. Replicas: 3",
    object: deployment({
      generation: 4,
      spec: { replicas: 3, progressDeadlineSeconds: 600 },
      status: {
        observedGeneration: 4,
        ...deploymentReplicas(3),
        conditions: [cond("Progressing", "True", "NewReplicaSetAvailable"), cond("Available", "True")],
      },
    }) },
  { name: "Deployment: no progressDeadlineSeconds needs no Progressing condition", status: "Current", message: "Deployment is available. Replicas: 1",
    object: deployment({ generation: 1, status: { observedGeneration: 1, ...deploymentReplicas(1), conditions: [cond("Available", "True")] } }) },
  { name: "Deployment: extensions group uses the same rule", status: "InProgress", message: "Updated: 1/2",
    object: kube("extensions/v1beta1", "Deployment", "d", { spec: { replicas: 2 }, status: { replicas: 2, updatedReplicas: 1 } }) },
];

const statefulSets: Case[] = [
  { name: "StatefulSet: OnDelete update strategy is Current", status: "Current", message: "StatefulSet is using the ondelete update strategy",
    object: statefulSet({ spec: { replicas: 3, updateStrategy: { type: "OnDelete" } } }) },
  { name: "StatefulSet: fewer replicas than spec", status: "InProgress", message: "Replicas: 1/3",
    object: statefulSet({ spec: { replicas: 3 }, status: { replicas: 1 } }) },
  { name: "StatefulSet: fewer ready replicas than spec", status: "InProgress", message: "Ready: 2/3",
    object: statefulSet({ spec: { replicas: 3 }, status: { replicas: 3, readyReplicas: 2 } }) },
  { name: "StatefulSet: extra pods pending termination", status: "InProgress", message: "Pending termination: 1",
    object: statefulSet({ spec: { replicas: 2 }, status: { replicas: 3, readyReplicas: 3 } }) },
  { name: "StatefulSet: partitioned rollout in progress", status: "InProgress", message: "updated: 1/2", reason: "PartitionRollout",
    object: statefulSet({
      spec: { replicas: 3, updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 1 } } },
      status: { replicas: 3, readyReplicas: 3, currentReplicas: 2, updatedReplicas: 1 },
    }) },
  { name: "StatefulSet: partitioned rollout complete", status: "Current", message: "Partition rollout complete. updated: 2",
    object: statefulSet({
      spec: { replicas: 3, updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 1 } } },
      status: { replicas: 3, readyReplicas: 3, currentReplicas: 1, updatedReplicas: 2, currentRevision: "s-1", updateRevision: "s-2" },
    }) },
  { name: "StatefulSet: fewer current replicas than spec", status: "InProgress", message: "current: 2/3", reason: "LessCurrent",
    object: statefulSet({ spec: { replicas: 3 }, status: { replicas: 3, readyReplicas: 3, currentReplicas: 2 } }) },
  { name: "StatefulSet: revisions differ", status: "InProgress", message: "Waiting for updated revision to match current", reason: "RevisionMismatch",
    object: statefulSet({
      spec: { replicas: 3 },
      status: { replicas: 3, readyReplicas: 3, currentReplicas: 3, currentRevision: "s-1", updateRevision: "s-2" },
    }) },
  { name: "StatefulSet: all replicas scheduled", status: "Current", message: "All replicas scheduled as expected. Replicas: 3",
    object: statefulSet({
      generation: 2,
      spec: { replicas: 3 },
      status: { observedGeneration: 2, replicas: 3, readyReplicas: 3, currentReplicas: 3, currentRevision: "s-2", updateRevision: "s-2" },
    }) },
];

const daemonSets: Case[] = [
  { name: "DaemonSet: no observedGeneration yet", status: "InProgress", message: "DaemonSet status.observedGeneration not found",
    reason: "NoObservedGeneration",
    object: daemonSet({ generation: 1 }) },
  { name: "DaemonSet: no generation", status: "InProgress", message: "DaemonSet metadata.generation not found", reason: "NoGeneration",
    object: daemonSet({ status: { observedGeneration: 1 } }) },
  { name: "DaemonSet: desiredNumberScheduled missing", status: "InProgress", message: "Missing .status.desiredNumberScheduled",
    object: daemonSet({ generation: 1, status: { observedGeneration: 1, currentNumberScheduled: 1 } }) },
  { name: "DaemonSet: fewer current than desired", status: "InProgress", message: "Current: 1/3",
    object: daemonSet({ generation: 1, status: { observedGeneration: 1, desiredNumberScheduled: 3, currentNumberScheduled: 1 } }) },
  { name: "DaemonSet: fewer updated than desired", status: "InProgress", message: "Updated: 2/3",
    object: daemonSet({ generation: 1, status: { observedGeneration: 1, desiredNumberScheduled: 3, currentNumberScheduled: 3, updatedNumberScheduled: 2 } }) },
  { name: "DaemonSet: fewer available than desired", status: "InProgress", message: "Available: 2/3",
    object: daemonSet({ generation: 1, status: { observedGeneration: 1, ...daemonSetScheduled(3), numberAvailable: 2 } }) },
  { name: "DaemonSet: fewer ready than desired", status: "InProgress", message: "Ready: 1/3",
    object: kube("extensions/v1beta1", "DaemonSet", "ds", { generation: 1, status: { observedGeneration: 1, ...daemonSetScheduled(3), numberReady: 1 } }) },
  { name: "DaemonSet: all scheduled", status: "Current", message: "All replicas scheduled as expected. Replicas: 3",
    object: daemonSet({ generation: 1, status: { observedGeneration: 1, ...daemonSetScheduled(3) } }) },
];

const replicaSets: Case[] = [
  { name: "ReplicaSet: ReplicaFailure condition stays InProgress", status: "InProgress", message: "Replica Failure condition. Check Pods",
    reason: "ReplicaFailure",
    object: replicaSet({ spec: { replicas: 2 }, status: { ...replicaSetReplicas(2), conditions: [cond("ReplicaFailure", "True", "FailedCreate")] } }) },
  { name: "ReplicaSet: fewer labelled than spec", status: "InProgress", message: "Labelled: 0/2", object: replicaSet({ spec: { replicas: 2 } }) },
  { name: "ReplicaSet: fewer available than spec", status: "InProgress", message: "Available: 1/2",
    object: replicaSet({ spec: { replicas: 2 }, status: { ...replicaSetReplicas(2), availableReplicas: 1 } }) },
  { name: "ReplicaSet: fewer ready than spec", status: "InProgress", message: "Ready: 1/2",
    object: replicaSet({ spec: { replicas: 2 }, status: { ...replicaSetReplicas(2), readyReplicas: 1 } }) },
  { name: "ReplicaSet: extra pods pending termination", status: "InProgress", message: "Pending termination: 1",
    object: kube("extensions/v1beta1", "ReplicaSet", "rs", { spec: { replicas: 2 }, status: replicaSetReplicas(3) }) },
  { name: "ReplicaSet: available", status: "Current", message: "ReplicaSet is available. Replicas: 2",
    object: replicaSet({ spec: { replicas: 2 }, status: { ...replicaSetReplicas(2), conditions: [cond("ReplicaFailure", "False")] } }) },
];

const unschedulablePod = pod({
  creationTimestamp: CREATED,
  status: { phase: "Pending", conditions: [cond("PodScheduled", "False", "Unschedulable", "0/1 nodes are available")] },
});

const pods: Case[] = [
  { name: "Pod: succeeded", status: "Current", message: "Pod has completed successfully",
    object: pod({ status: { phase: "Succeeded", conditions: [cond("Ready", "False", "PodCompleted")] } }) },
  { name: "Pod: failed phase is still Current", status: "Current", message: "Pod has completed, but not successfully",
    object: pod({ status: { phase: "Failed" } }) },
  { name: "Pod: running and Ready", status: "Current", message: "Pod is Ready",
    object: pod({ status: { phase: "Running", conditions: [cond("Ready", "True")] } }) },
  { name: "Pod: containers in CrashLoopBackOff are Failed", status: "Failed", message: "Containers in CrashLoop state: a,b", reason: "ContainerCrashLooping",
    object: pod({
      status: {
        phase: "Running",
        conditions: [cond("Ready", "False")],
        containerStatuses: [waiting("a", "CrashLoopBackOff"), { name: "sidecar", state: { running: {} } }, waiting("b", "CrashLoopBackOff")],
      },
    }) },
  { name: "Pod: running but not Ready", status: "InProgress", message: "Pod is running but is not Ready",
    object: pod({ status: { phase: "Running", containerStatuses: [waiting("a", "ContainerCreating")] } }) },
  { name: "Pod: unschedulable just inside the 15s window is InProgress", status: "InProgress", message: "Pod has not been scheduled", reason: "PodNotScheduled",
    now: "2024-05-01T10:00:14.999Z", object: unschedulablePod },
  { name: "Pod: unschedulable at exactly 15s is Failed", status: "Failed", message: "Pod could not be scheduled", reason: "PodUnschedulable",
    now: "2024-05-01T10:00:15.000Z", object: unschedulablePod },
  { name: "Pod: unschedulable without creationTimestamp is Failed", status: "Failed", message: "Pod could not be scheduled",
    object: pod({ status: { phase: "Pending", conditions: [cond("PodScheduled", "False", "Unschedulable")] } }) },
  { name: "Pod: pending for another reason", status: "InProgress", message: "Pod is in the Pending phase", now: "2024-05-01T11:00:00Z",
    object: pod({ creationTimestamp: CREATED, status: { phase: "Pending", conditions: [cond("PodScheduled", "True")] } }) },
  { name: "Pod: no phase yet", status: "InProgress", message: "Pod phase not available", reason: "PodNotObserved", object: pod() },
  { name: "Pod: unknown phase is Unknown", status: "Unknown", message: "unknown phase Unknown", object: pod({ status: { phase: "Unknown" } }) },
];

const jobs: Case[] = [
  { name: "Job: Complete condition", status: "Current", message: "Job Completed. succeeded: 1/1",
    object: job({ status: { succeeded: 1, conditions: [cond("Complete", "True")] } }) },
  { name: "Job: completions default to parallelism", status: "Current", message: "Job Completed. succeeded: 3/3",
    object: job({ spec: { parallelism: 3 }, status: { succeeded: 3, conditions: [cond("Complete", "True")] } }) },
  { name: "Job: Failed condition is Failed", status: "Failed", message: "Job Failed. failed: 1/4", reason: "JobFailed",
    object: job({ spec: { completions: 4 }, status: { succeeded: 3, failed: 1, conditions: [cond("Failed", "True", "BackoffLimitExceeded")] } }) },
  { name: "Job: not started", status: "InProgress", message: "Job not started", reason: "JobNotStarted", object: job() },
  { name: "Job: running is Current", status: "Current", message: "Job in progress. success:3, active: 2, failed: 1",
    object: job({
      spec: { completions: 10, parallelism: 2 },
      status: { startTime: "2024-05-01T10:00:00Z", succeeded: 3, failed: 1, active: 2, conditions: [cond("Failed", "False"), cond("Complete", "False")] },
    }) },
  { name: "Job: suspended is Current", status: "Current", message: "Job is suspended",
    object: job({ spec: { suspend: true }, status: { conditions: [cond("Suspended", "True", "JobSuspended")] } }) },
];

const simpleKinds: Case[] = [
  { name: "ConfigMap is always ready", status: "Current", message: "Resource is always ready", object: configMap() },
  { name: "Secret is always ready", status: "Current", message: "Resource is always ready", object: secret() },
  {
    name: "CronJob is always ready, even with an empty status",
    object: fromYaml(`
apiVersion: batch/v1
kind: CronJob
metadata: { name: cj, generation: 1 }
status:`),
    status: "Current",
    message: "Resource is always ready",
  },
  { name: "PVC: pending", status: "InProgress", message: "PVC is not Bound. phase: Pending", reason: "NotBound",
    object: pvc({ status: { phase: "Pending" } }) },
  { name: "PVC: no status", status: "InProgress", message: "PVC is not Bound. phase: unknown", object: pvc() },
  { name: "PVC: bound", status: "Current", message: "PVC is Bound", object: pvc({ status: { phase: "Bound" } }) },
  { name: "Service: default ClusterIP type", status: "Current", message: "Service is ready", object: service() },
  { name: "Service: LoadBalancer without clusterIP", status: "InProgress", message: "ClusterIP not set. Service type: LoadBalancer", reason: "NoIPAssigned",
    object: service({ spec: { type: "LoadBalancer" } }) },
  { name: "Service: LoadBalancer with clusterIP does not wait for ingress", status: "Current", message: "Service is ready",
    object: service({ spec: { type: "LoadBalancer", clusterIP: "10.0.0.7" }, status: { loadBalancer: {} } }) },
  { name: "PodDisruptionBudget: observed", status: "Current", message: "AllowedDisruptions has been computed.",
    object: pdb({ generation: 1, status: { observedGeneration: 1 } }) },
  { name: "PodDisruptionBudget: not yet observed", status: "InProgress", message: "PodDisruptionBudget generation is 2, but latest observed generation is 1",
    object: pdb({ generation: 2, status: { observedGeneration: 1 } }) },
];

const crds: Case[] = [
  { name: "CRD: no conditions is installing", status: "InProgress", message: "Install in progress", reason: "Installing", object: crd({ generation: 1 }) },
  { name: "CRD: Established=False reason Installing", status: "InProgress", message: "Install in progress",
    object: crd({
      status: {
        conditions: [cond("NamesAccepted", "True", "NoConflicts"), cond("Established", "False", "Installing", "the initial names have been accepted")],
      },
    }) },
  { name: "CRD: names not accepted is Failed with the condition's message", status: "Failed", message: '"widgets" is already in use',
    reason: "MultipleConflicts",
    object: crd({ status: { conditions: [cond("NamesAccepted", "False", "MultipleConflicts", '"widgets" is already in use')] } }) },
  { name: "CRD: Established=False for another reason is Failed", status: "Failed", message: "not all names are accepted",
    object: crd({ status: { conditions: [cond("Established", "False", "NotAccepted", "not all names are accepted")] } }) },
  { name: "CRD: established", status: "Current", message: "CRD is established",
    object: crd({ status: { conditions: [cond("NamesAccepted", "True", "NoConflicts"), cond("Established", "True", "InitialNamesAccepted")] } }) },
];

const configConnector: Case[] = [
  { name: "Config Connector: Ready=True", status: "Current", message: "Resource is Current",
    object: bucket({ generation: 2, status: { observedGeneration: 2, conditions: [cond("Ready", "True", "UpToDate", "The resource is up to date")] } }) },
  { name: "Config Connector: Ready=False with a failure reason is Failed", status: "Failed", message: "Update call failed: 403", reason: "UpdateFailed",
    object: bucket({ generation: 1, status: { observedGeneration: 1, conditions: [cond("Ready", "False", "UpdateFailed", "Update call failed: 403")] } }) },
  { name: "Config Connector: Ready=False with another reason is InProgress", status: "InProgress", message: "reference not ready",
    object: kube("sql.cnrm.cloud.google.com/v1beta1", "SQLInstance", "db", {
      generation: 1,
      status: { observedGeneration: 1, conditions: [cond("Ready", "False", "DependencyNotReady", "reference not ready")] },
    }) },
  { name: "Config Connector: no Ready condition", status: "InProgress", message: "Ready condition not set",
    object: bucket({ generation: 1, status: { observedGeneration: 1 } }) },
  { name: "Config Connector: generation not observed", status: "InProgress", message: "StorageBucket generation is 2, but latest observed generation is 1",
    object: bucket({ generation: 2, status: { observedGeneration: 1 } }) },
  { name: "Config Connector: missing observedGeneration is Unknown", status: "Unknown", message: "status.ObservedGeneration not found",
    object: bucket({ generation: 1 }) },
  { name: "Config Connector: missing generation is Unknown", status: "Unknown", message: "metadata.generation not found",
    object: bucket({ status: { observedGeneration: 1 } }) },
  { name: "Config Connector: Stalled is not read, only Ready", status: "Current", message: "Resource is Current",
    object: bucket({
      generation: 1,
      status: { observedGeneration: 1, conditions: [{ type: "Stalled", status: "True", message: "ignored" }, cond("Ready", "True")] },
    }) },
  { name: "Config Connector: being deleted", status: "Terminating", message: "Resource scheduled for deletion",
    object: bucket({ deletionTimestamp: "2024-05-01T10:00:00Z" }) },
  { name: "ConfigConnectorContext: healthy not set", status: "InProgress", message: "status.healthy property not set",
    object: connectorContext({ name: "configconnectorcontext.core.cnrm.cloud.google.com", namespace: "team-a" }) },
  { name: "ConfigConnectorContext: unhealthy", status: "InProgress", message: "status.healthy is false",
    object: connectorContext({ status: { healthy: false } }) },
  { name: "ConfigConnectorContext: healthy", status: "Current", message: "status.healthy is true", object: connectorContext({ status: { healthy: true } }) },
  {
    name: "ConfigConnectorContext: healthy is a string",
    object: fromYaml(`
apiVersion: core.cnrm.cloud.google.com/v1beta1
kind: ConfigConnectorContext
metadata: { name: ccc }
status: { healthy: "true" }`),
    status: "Unknown",
    message: "looking up status.healthy from resource: .status.healthy is a string, expected a boolean",
  },
];

const cases: Case[] = [
  ...generic,
  ...malformed,
  ...deployments,
  ...statefulSets,
  ...daemonSets,
  ...replicaSets,
  ...pods,
  ...jobs,
  ...simpleKinds,
  ...crds,
  ...configConnector,
];

describe("computeStatus", () => {
  it.each(cases)("$name", (c) => {
    const res = computeStatus(c.object, c.now ? { now: new Date(c.now) } : {});
    expect({ status: res.status, message: res.message }).toEqual({ status: c.status, message: c.message });
    if (c.reason !== undefined) expect(res.reason).toBe(c.reason);
  });

  it("has no duplicate case names", () => {
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
  });

  it("derives kstatus' Reconciling and Stalled conditions", () => {
    const notReady = computeStatus(parse(`
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: pvc }`) as KubeObject);
    expect(notReady.conditions).toEqual([
      { type: "Reconciling", status: "True", reason: "NotBound", message: "PVC is not Bound. phase: unknown" },
    ]);
    const stuck = computeStatus(deployments[0]!.object);
    // The Stalled condition keeps the controller's own explanation.
    expect(stuck.conditions).toEqual([
      { type: "Stalled", status: "True", reason: "ProgressDeadlineExceeded", message: 'ReplicaSet "d-1" has timed out progressing.' },
    ]);
  });

  it.each([
    ["null metadata", { apiVersion: "v1", kind: "Pod", metadata: null }],
    ["no apiVersion", { kind: "Pod", metadata: {} }],
    ["status is a list", { apiVersion: "apps/v1", kind: "Deployment", metadata: { generation: 1 }, status: [] }],
  ])("never throws on a malformed object: %s", (_name, raw) => {
    expect(() => computeStatus(raw as unknown as KubeObject)).not.toThrow();
  });
});
