// kstatus rules, one named case per branch. Messages are kstatus'/kpt's exact strings.

import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { KubeObject } from "../../src/model/kube-object.js";
import type { KStatus } from "../../src/model/events.js";
import { computeStatus } from "../../src/status/compute-status.js";

interface Case {
  name: string;
  yaml: string;
  status: KStatus;
  message: string;
  reason?: string;
  now?: string;
}

const CREATED = "2024-05-01T10:00:00Z";

const generic: Case[] = [
  {
    name: "custom resource without status is Current",
    yaml: `
apiVersion: example.com/v1
kind: Widget
metadata: { name: w, generation: 1 }`,
    status: "Current",
    message: "Resource is current",
  },
  {
    name: "deletionTimestamp makes any object Terminating, before kind rules",
    yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: { name: d, generation: 2, deletionTimestamp: "2024-05-01T10:00:00Z" }
status: { observedGeneration: 1 }`,
    status: "Terminating",
    message: "Resource scheduled for deletion",
  },
  {
    name: "custom resource with observedGeneration behind",
    yaml: `
apiVersion: example.com/v1
kind: Widget
metadata: { name: w, generation: 2 }
status: { observedGeneration: 1 }`,
    status: "InProgress",
    message: "Widget generation is 2, but latest observed generation is 1",
    reason: "LatestGenerationNotObserved",
  },
  {
    name: "generation mismatch wins over the Deployment rule",
    yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: { name: d, generation: 3 }
spec: { replicas: 1 }
status: { observedGeneration: 2, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 }`,
    status: "InProgress",
    message: "Deployment generation is 3, but latest observed generation is 2",
  },
  {
    name: "absent observedGeneration is not a mismatch",
    yaml: `
apiVersion: example.com/v1
kind: Widget
metadata: { name: w, generation: 5 }
status: { phase: Whatever }`,
    status: "Current",
    message: "Resource is current",
  },
  {
    name: "Reconciling=True is InProgress with its message",
    yaml: `
apiVersion: example.com/v1
kind: Widget
metadata: { name: w, generation: 1 }
status:
  observedGeneration: 1
  conditions:
  - { type: Reconciling, status: "True", reason: Provisioning, message: "creating bucket" }`,
    status: "InProgress",
    message: "creating bucket",
    reason: "Provisioning",
  },
  {
    name: "Stalled=True is Failed with its message",
    yaml: `
apiVersion: example.com/v1
kind: Widget
metadata: { name: w, generation: 1 }
status:
  conditions:
  - { type: Stalled, status: "True", reason: QuotaExceeded, message: "quota exceeded" }`,
    status: "Failed",
    message: "quota exceeded",
    reason: "QuotaExceeded",
  },
  {
    name: "Reconciling=False and Stalled=False decide nothing",
    yaml: `
apiVersion: example.com/v1
kind: Widget
metadata: { name: w }
status:
  conditions:
  - { type: Reconciling, status: "False" }
  - { type: Stalled, status: "False" }`,
    status: "Current",
    message: "Resource is current",
  },
  {
    name: "Stalled=True wins over a kind rule",
    yaml: `
apiVersion: v1
kind: ConfigMap
metadata: { name: c }
status:
  conditions:
  - { type: Stalled, status: "True", reason: Broken, message: "broken" }`,
    status: "Failed",
    message: "broken",
  },
  {
    name: "Ready=True on a custom resource is Current",
    yaml: `
apiVersion: example.com/v1
kind: Widget
metadata: { name: w, generation: 1 }
status:
  conditions:
  - { type: Ready, status: "True", reason: AllOk, message: "All looks ok" }`,
    status: "Current",
    message: "Resource is Ready",
  },
  {
    name: "Ready=False on a custom resource is InProgress with its message",
    yaml: `
apiVersion: example.com/v1
kind: Widget
metadata: { name: w, generation: 1 }
status:
  observedGeneration: 1
  conditions:
  - { type: Ready, status: "False", reason: NotReadyYet, message: "waiting for backend" }`,
    status: "InProgress",
    message: "waiting for backend",
    reason: "NotReadyYet",
  },
  {
    name: "Ready=Unknown on a custom resource is InProgress",
    yaml: `
apiVersion: example.com/v1
kind: Widget
metadata: { name: w }
status:
  conditions:
  - { type: Ready, status: "Unknown", reason: Pending, message: "not checked yet" }`,
    status: "InProgress",
    message: "not checked yet",
  },
  {
    name: "Ready condition is ignored when a kind rule exists",
    yaml: `
apiVersion: v1
kind: Secret
metadata: { name: s }
status:
  conditions:
  - { type: Ready, status: "False", message: "nope" }`,
    status: "Current",
    message: "Resource is always ready",
  },
  {
    name: "other conditions on a custom resource are ignored",
    yaml: `
apiVersion: example.com/v1
kind: Widget
metadata: { name: w }
status:
  conditions:
  - { type: SomeCondition, status: "False" }`,
    status: "Current",
    message: "Resource is current",
  },
  {
    name: "Namespace uses the generic rules",
    yaml: `
apiVersion: v1
kind: Namespace
metadata: { name: ns }
status: { phase: Active }`,
    status: "Current",
    message: "Resource is current",
  },
  {
    name: "Namespace being deleted is Terminating",
    yaml: `
apiVersion: v1
kind: Namespace
metadata: { name: ns, deletionTimestamp: "2024-05-01T10:00:00Z" }
status: { phase: Terminating }`,
    status: "Terminating",
    message: "Resource scheduled for deletion",
  },
];

const malformed: Case[] = [
  {
    name: "malformed: status is a string",
    yaml: `
apiVersion: example.com/v1
kind: Widget
metadata: { name: w, generation: 1 }
status: broken`,
    status: "Unknown",
    message: "looking up status.observedGeneration from resource: .status is a string, expected a map",
  },
  {
    name: "malformed: generation is a string",
    yaml: `
apiVersion: example.com/v1
kind: Widget
metadata: { name: w, generation: "2" }`,
    status: "Unknown",
    message: "looking up metadata.generation from resource: .metadata.generation is a string, expected an integer",
  },
  {
    name: "malformed: conditions is not a list",
    yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: { name: d }
status: { conditions: yes-please }`,
    status: "Unknown",
    message: "reading status.conditions: expected a list, got a string",
  },
  {
    name: "malformed: condition status is a boolean",
    yaml: `
apiVersion: example.com/v1
kind: Widget
metadata: { name: w }
status:
  conditions:
  - { type: Ready, status: true }`,
    status: "Unknown",
    message: "reading status.conditions[0].status: expected a string, got a boolean",
  },
  {
    name: "malformed: containerStatuses is a map",
    yaml: `
apiVersion: v1
kind: Pod
metadata: { name: p }
status: { phase: Running, containerStatuses: { a: 1 } }`,
    status: "Unknown",
    message: "reading status.containerStatuses: expected a list, got a map",
  },
  {
    name: "mistyped counters fall back to defaults, as kstatus' GetIntField",
    yaml: `
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
  - { type: Available, status: "True" }`,
    status: "Current",
    message: "Deployment is available. Replicas: 1",
  },
];

const deployment: Case[] = [
  {
    name: "Deployment: progress deadline exceeded is Failed",
    yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: { name: d, generation: 1 }
spec: { replicas: 3, progressDeadlineSeconds: 600 }
status:
  observedGeneration: 1
  replicas: 3
  updatedReplicas: 1
  conditions:
  - { type: Progressing, status: "False", reason: ProgressDeadlineExceeded, message: 'ReplicaSet "d-1" has timed out progressing.' }`,
    status: "Failed",
    message: "Progress deadline exceeded",
    reason: "ProgressDeadlineExceeded",
  },
  {
    name: "Deployment: without status waits for replicas (spec defaults to 1)",
    yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: { name: d, generation: 1 }`,
    status: "InProgress",
    message: "Replicas: 0/1",
    reason: "LessReplicas",
  },
  {
    name: "Deployment: fewer replicas than spec",
    yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: { name: d, generation: 1 }
spec: { replicas: 3 }
status: { observedGeneration: 1, replicas: 1 }`,
    status: "InProgress",
    message: "Replicas: 1/3",
  },
  {
    name: "Deployment: fewer updated replicas than spec",
    yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: { name: d, generation: 1 }
spec: { replicas: 3 }
status: { observedGeneration: 1, replicas: 3, updatedReplicas: 2 }`,
    status: "InProgress",
    message: "Updated: 2/3",
    reason: "LessUpdated",
  },
  {
    name: "Deployment: old pods pending termination",
    yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: { name: d, generation: 1 }
spec: { replicas: 3 }
status: { observedGeneration: 1, replicas: 4, updatedReplicas: 3 }`,
    status: "InProgress",
    message: "Pending termination: 1",
    reason: "ExtraPods",
  },
  {
    name: "Deployment: updated replicas not yet available",
    yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: { name: d, generation: 1 }
spec: { replicas: 3 }
status: { observedGeneration: 1, replicas: 3, updatedReplicas: 3, availableReplicas: 1, readyReplicas: 1 }`,
    status: "InProgress",
    message: "Available: 1/3",
    reason: "LessAvailable",
  },
  {
    name: "Deployment: fewer ready replicas than spec",
    yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: { name: d, generation: 1 }
spec: { replicas: 3 }
status: { observedGeneration: 1, replicas: 3, updatedReplicas: 3, availableReplicas: 3, readyReplicas: 2 }`,
    status: "InProgress",
    message: "Ready: 2/3",
    reason: "LessReady",
  },
  {
    name: "Deployment: deadline set but new ReplicaSet not reported available",
    yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: { name: d, generation: 1 }
spec: { replicas: 1, progressDeadlineSeconds: 600 }
status:
  observedGeneration: 1
  replicas: 1
  updatedReplicas: 1
  availableReplicas: 1
  readyReplicas: 1
  conditions:
  - { type: Progressing, status: "True", reason: ReplicaSetUpdated }
  - { type: Available, status: "True" }`,
    status: "InProgress",
    message: "ReplicaSet not Available",
    reason: "ReplicaSetNotAvailable",
  },
  {
    name: "Deployment: Available condition not True",
    yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: { name: d, generation: 1 }
spec: { replicas: 1, progressDeadlineSeconds: 600 }
status:
  observedGeneration: 1
  replicas: 1
  updatedReplicas: 1
  availableReplicas: 1
  readyReplicas: 1
  conditions:
  - { type: Progressing, status: "True", reason: NewReplicaSetAvailable }
  - { type: Available, status: "False", reason: MinimumReplicasUnavailable }`,
    status: "InProgress",
    message: "Deployment not Available",
    reason: "DeploymentNotAvailable",
  },
  {
    name: "Deployment: available with replica count",
    yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: { name: d, generation: 4 }
spec: { replicas: 3, progressDeadlineSeconds: 600 }
status:
  observedGeneration: 4
  replicas: 3
  updatedReplicas: 3
  availableReplicas: 3
  readyReplicas: 3
  conditions:
  - { type: Progressing, status: "True", reason: NewReplicaSetAvailable }
  - { type: Available, status: "True" }`,
    status: "Current",
    message: "Deployment is available. Replicas: 3",
  },
  {
    name: "Deployment: no progressDeadlineSeconds needs no Progressing condition",
    yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: { name: d, generation: 1 }
status:
  observedGeneration: 1
  replicas: 1
  updatedReplicas: 1
  availableReplicas: 1
  readyReplicas: 1
  conditions:
  - { type: Available, status: "True" }`,
    status: "Current",
    message: "Deployment is available. Replicas: 1",
  },
  {
    name: "Deployment: extensions group uses the same rule",
    yaml: `
apiVersion: extensions/v1beta1
kind: Deployment
metadata: { name: d }
spec: { replicas: 2 }
status: { replicas: 2, updatedReplicas: 1 }`,
    status: "InProgress",
    message: "Updated: 1/2",
  },
];

const statefulSet: Case[] = [
  {
    name: "StatefulSet: OnDelete update strategy is Current",
    yaml: `
apiVersion: apps/v1
kind: StatefulSet
metadata: { name: s }
spec: { replicas: 3, updateStrategy: { type: OnDelete } }`,
    status: "Current",
    message: "StatefulSet is using the ondelete update strategy",
  },
  {
    name: "StatefulSet: fewer replicas than spec",
    yaml: `
apiVersion: apps/v1
kind: StatefulSet
metadata: { name: s }
spec: { replicas: 3 }
status: { replicas: 1 }`,
    status: "InProgress",
    message: "Replicas: 1/3",
  },
  {
    name: "StatefulSet: fewer ready replicas than spec",
    yaml: `
apiVersion: apps/v1
kind: StatefulSet
metadata: { name: s }
spec: { replicas: 3 }
status: { replicas: 3, readyReplicas: 2 }`,
    status: "InProgress",
    message: "Ready: 2/3",
  },
  {
    name: "StatefulSet: extra pods pending termination",
    yaml: `
apiVersion: apps/v1
kind: StatefulSet
metadata: { name: s }
spec: { replicas: 2 }
status: { replicas: 3, readyReplicas: 3 }`,
    status: "InProgress",
    message: "Pending termination: 1",
  },
  {
    name: "StatefulSet: partitioned rollout in progress",
    yaml: `
apiVersion: apps/v1
kind: StatefulSet
metadata: { name: s }
spec: { replicas: 3, updateStrategy: { type: RollingUpdate, rollingUpdate: { partition: 1 } } }
status: { replicas: 3, readyReplicas: 3, currentReplicas: 2, updatedReplicas: 1 }`,
    status: "InProgress",
    message: "updated: 1/2",
    reason: "PartitionRollout",
  },
  {
    name: "StatefulSet: partitioned rollout complete",
    yaml: `
apiVersion: apps/v1
kind: StatefulSet
metadata: { name: s }
spec: { replicas: 3, updateStrategy: { type: RollingUpdate, rollingUpdate: { partition: 1 } } }
status: { replicas: 3, readyReplicas: 3, currentReplicas: 1, updatedReplicas: 2, currentRevision: s-1, updateRevision: s-2 }`,
    status: "Current",
    message: "Partition rollout complete. updated: 2",
  },
  {
    name: "StatefulSet: fewer current replicas than spec",
    yaml: `
apiVersion: apps/v1
kind: StatefulSet
metadata: { name: s }
spec: { replicas: 3 }
status: { replicas: 3, readyReplicas: 3, currentReplicas: 2 }`,
    status: "InProgress",
    message: "current: 2/3",
    reason: "LessCurrent",
  },
  {
    name: "StatefulSet: revisions differ",
    yaml: `
apiVersion: apps/v1
kind: StatefulSet
metadata: { name: s }
spec: { replicas: 3 }
status: { replicas: 3, readyReplicas: 3, currentReplicas: 3, currentRevision: s-1, updateRevision: s-2 }`,
    status: "InProgress",
    message: "Waiting for updated revision to match current",
    reason: "RevisionMismatch",
  },
  {
    name: "StatefulSet: all replicas scheduled",
    yaml: `
apiVersion: apps/v1
kind: StatefulSet
metadata: { name: s, generation: 2 }
spec: { replicas: 3 }
status: { observedGeneration: 2, replicas: 3, readyReplicas: 3, currentReplicas: 3, currentRevision: s-2, updateRevision: s-2 }`,
    status: "Current",
    message: "All replicas scheduled as expected. Replicas: 3",
  },
];

const daemonSet: Case[] = [
  {
    name: "DaemonSet: no observedGeneration yet",
    yaml: `
apiVersion: apps/v1
kind: DaemonSet
metadata: { name: ds, generation: 1 }`,
    status: "InProgress",
    message: "DaemonSet status.observedGeneration not found",
    reason: "NoObservedGeneration",
  },
  {
    name: "DaemonSet: no generation",
    yaml: `
apiVersion: apps/v1
kind: DaemonSet
metadata: { name: ds }
status: { observedGeneration: 1 }`,
    status: "InProgress",
    message: "DaemonSet metadata.generation not found",
    reason: "NoGeneration",
  },
  {
    name: "DaemonSet: desiredNumberScheduled missing",
    yaml: `
apiVersion: apps/v1
kind: DaemonSet
metadata: { name: ds, generation: 1 }
status: { observedGeneration: 1, currentNumberScheduled: 1 }`,
    status: "InProgress",
    message: "Missing .status.desiredNumberScheduled",
  },
  {
    name: "DaemonSet: fewer current than desired",
    yaml: `
apiVersion: apps/v1
kind: DaemonSet
metadata: { name: ds, generation: 1 }
status: { observedGeneration: 1, desiredNumberScheduled: 3, currentNumberScheduled: 1 }`,
    status: "InProgress",
    message: "Current: 1/3",
  },
  {
    name: "DaemonSet: fewer updated than desired",
    yaml: `
apiVersion: apps/v1
kind: DaemonSet
metadata: { name: ds, generation: 1 }
status: { observedGeneration: 1, desiredNumberScheduled: 3, currentNumberScheduled: 3, updatedNumberScheduled: 2 }`,
    status: "InProgress",
    message: "Updated: 2/3",
  },
  {
    name: "DaemonSet: fewer available than desired",
    yaml: `
apiVersion: apps/v1
kind: DaemonSet
metadata: { name: ds, generation: 1 }
status: { observedGeneration: 1, desiredNumberScheduled: 3, currentNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 2, numberReady: 3 }`,
    status: "InProgress",
    message: "Available: 2/3",
  },
  {
    name: "DaemonSet: fewer ready than desired",
    yaml: `
apiVersion: extensions/v1beta1
kind: DaemonSet
metadata: { name: ds, generation: 1 }
status: { observedGeneration: 1, desiredNumberScheduled: 3, currentNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3, numberReady: 1 }`,
    status: "InProgress",
    message: "Ready: 1/3",
  },
  {
    name: "DaemonSet: all scheduled",
    yaml: `
apiVersion: apps/v1
kind: DaemonSet
metadata: { name: ds, generation: 1 }
status: { observedGeneration: 1, desiredNumberScheduled: 3, currentNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3, numberReady: 3 }`,
    status: "Current",
    message: "All replicas scheduled as expected. Replicas: 3",
  },
];

const replicaSet: Case[] = [
  {
    name: "ReplicaSet: ReplicaFailure condition stays InProgress",
    yaml: `
apiVersion: apps/v1
kind: ReplicaSet
metadata: { name: rs }
spec: { replicas: 2 }
status:
  replicas: 2
  fullyLabeledReplicas: 2
  availableReplicas: 2
  readyReplicas: 2
  conditions:
  - { type: ReplicaFailure, status: "True", reason: FailedCreate }`,
    status: "InProgress",
    message: "Replica Failure condition. Check Pods",
    reason: "ReplicaFailure",
  },
  {
    name: "ReplicaSet: fewer labelled than spec",
    yaml: `
apiVersion: apps/v1
kind: ReplicaSet
metadata: { name: rs }
spec: { replicas: 2 }`,
    status: "InProgress",
    message: "Labelled: 0/2",
  },
  {
    name: "ReplicaSet: fewer available than spec",
    yaml: `
apiVersion: apps/v1
kind: ReplicaSet
metadata: { name: rs }
spec: { replicas: 2 }
status: { replicas: 2, fullyLabeledReplicas: 2, availableReplicas: 1, readyReplicas: 2 }`,
    status: "InProgress",
    message: "Available: 1/2",
  },
  {
    name: "ReplicaSet: fewer ready than spec",
    yaml: `
apiVersion: apps/v1
kind: ReplicaSet
metadata: { name: rs }
spec: { replicas: 2 }
status: { replicas: 2, fullyLabeledReplicas: 2, availableReplicas: 2, readyReplicas: 1 }`,
    status: "InProgress",
    message: "Ready: 1/2",
  },
  {
    name: "ReplicaSet: extra pods pending termination",
    yaml: `
apiVersion: extensions/v1beta1
kind: ReplicaSet
metadata: { name: rs }
spec: { replicas: 2 }
status: { replicas: 3, fullyLabeledReplicas: 3, availableReplicas: 3, readyReplicas: 3 }`,
    status: "InProgress",
    message: "Pending termination: 1",
  },
  {
    name: "ReplicaSet: available",
    yaml: `
apiVersion: apps/v1
kind: ReplicaSet
metadata: { name: rs }
spec: { replicas: 2 }
status:
  replicas: 2
  fullyLabeledReplicas: 2
  availableReplicas: 2
  readyReplicas: 2
  conditions:
  - { type: ReplicaFailure, status: "False" }`,
    status: "Current",
    message: "ReplicaSet is available. Replicas: 2",
  },
];

const unschedulablePod = `
apiVersion: v1
kind: Pod
metadata: { name: p, creationTimestamp: "${CREATED}" }
status:
  phase: Pending
  conditions:
  - { type: PodScheduled, status: "False", reason: Unschedulable, message: "0/1 nodes are available" }`;

const pod: Case[] = [
  {
    name: "Pod: succeeded",
    yaml: `
apiVersion: v1
kind: Pod
metadata: { name: p }
status:
  phase: Succeeded
  conditions:
  - { type: Ready, status: "False", reason: PodCompleted }`,
    status: "Current",
    message: "Pod has completed successfully",
  },
  {
    name: "Pod: failed phase is still Current",
    yaml: `
apiVersion: v1
kind: Pod
metadata: { name: p }
status: { phase: Failed }`,
    status: "Current",
    message: "Pod has completed, but not successfully",
  },
  {
    name: "Pod: running and Ready",
    yaml: `
apiVersion: v1
kind: Pod
metadata: { name: p }
status:
  phase: Running
  conditions:
  - { type: Ready, status: "True" }`,
    status: "Current",
    message: "Pod is Ready",
  },
  {
    name: "Pod: containers in CrashLoopBackOff are Failed",
    yaml: `
apiVersion: v1
kind: Pod
metadata: { name: p }
status:
  phase: Running
  conditions:
  - { type: Ready, status: "False" }
  containerStatuses:
  - { name: a, state: { waiting: { reason: CrashLoopBackOff } } }
  - { name: sidecar, state: { running: {} } }
  - { name: b, state: { waiting: { reason: CrashLoopBackOff } } }`,
    status: "Failed",
    message: "Containers in CrashLoop state: a,b",
    reason: "ContainerCrashLooping",
  },
  {
    name: "Pod: running but not Ready",
    yaml: `
apiVersion: v1
kind: Pod
metadata: { name: p }
status:
  phase: Running
  containerStatuses:
  - { name: a, state: { waiting: { reason: ContainerCreating } } }`,
    status: "InProgress",
    message: "Pod is running but is not Ready",
  },
  {
    name: "Pod: unschedulable just inside the 15s window is InProgress",
    yaml: unschedulablePod,
    now: "2024-05-01T10:00:14.999Z",
    status: "InProgress",
    message: "Pod has not been scheduled",
    reason: "PodNotScheduled",
  },
  {
    name: "Pod: unschedulable at exactly 15s is Failed",
    yaml: unschedulablePod,
    now: "2024-05-01T10:00:15.000Z",
    status: "Failed",
    message: "Pod could not be scheduled",
    reason: "PodUnschedulable",
  },
  {
    name: "Pod: unschedulable without creationTimestamp is Failed",
    yaml: `
apiVersion: v1
kind: Pod
metadata: { name: p }
status:
  phase: Pending
  conditions:
  - { type: PodScheduled, status: "False", reason: Unschedulable }`,
    status: "Failed",
    message: "Pod could not be scheduled",
  },
  {
    name: "Pod: pending for another reason",
    yaml: `
apiVersion: v1
kind: Pod
metadata: { name: p, creationTimestamp: "${CREATED}" }
status:
  phase: Pending
  conditions:
  - { type: PodScheduled, status: "True" }`,
    now: "2024-05-01T11:00:00Z",
    status: "InProgress",
    message: "Pod is in the Pending phase",
  },
  {
    name: "Pod: no phase yet",
    yaml: `
apiVersion: v1
kind: Pod
metadata: { name: p }`,
    status: "InProgress",
    message: "Pod phase not available",
    reason: "PodNotObserved",
  },
  {
    name: "Pod: unknown phase is Unknown",
    yaml: `
apiVersion: v1
kind: Pod
metadata: { name: p }
status: { phase: Unknown }`,
    status: "Unknown",
    message: "unknown phase Unknown",
  },
];

const job: Case[] = [
  {
    name: "Job: Complete condition",
    yaml: `
apiVersion: batch/v1
kind: Job
metadata: { name: j }
status:
  succeeded: 1
  conditions:
  - { type: Complete, status: "True" }`,
    status: "Current",
    message: "Job Completed. succeeded: 1/1",
  },
  {
    name: "Job: completions default to parallelism",
    yaml: `
apiVersion: batch/v1
kind: Job
metadata: { name: j }
spec: { parallelism: 3 }
status:
  succeeded: 3
  conditions:
  - { type: Complete, status: "True" }`,
    status: "Current",
    message: "Job Completed. succeeded: 3/3",
  },
  {
    name: "Job: Failed condition is Failed",
    yaml: `
apiVersion: batch/v1
kind: Job
metadata: { name: j }
spec: { completions: 4 }
status:
  succeeded: 3
  failed: 1
  conditions:
  - { type: Failed, status: "True", reason: BackoffLimitExceeded }`,
    status: "Failed",
    message: "Job Failed. failed: 1/4",
    reason: "JobFailed",
  },
  {
    name: "Job: not started",
    yaml: `
apiVersion: batch/v1
kind: Job
metadata: { name: j }`,
    status: "InProgress",
    message: "Job not started",
    reason: "JobNotStarted",
  },
  {
    name: "Job: running is Current",
    yaml: `
apiVersion: batch/v1
kind: Job
metadata: { name: j }
spec: { completions: 10, parallelism: 2 }
status:
  startTime: "2024-05-01T10:00:00Z"
  succeeded: 3
  failed: 1
  active: 2
  conditions:
  - { type: Failed, status: "False" }
  - { type: Complete, status: "False" }`,
    status: "Current",
    message: "Job in progress. success:3, active: 2, failed: 1",
  },
  {
    name: "Job: suspended is Current",
    yaml: `
apiVersion: batch/v1
kind: Job
metadata: { name: j }
spec: { suspend: true }
status:
  conditions:
  - { type: Suspended, status: "True", reason: JobSuspended }`,
    status: "Current",
    message: "Job is suspended",
  },
];

const simpleKinds: Case[] = [
  {
    name: "ConfigMap is always ready",
    yaml: `
apiVersion: v1
kind: ConfigMap
metadata: { name: c }`,
    status: "Current",
    message: "Resource is always ready",
  },
  {
    name: "Secret is always ready",
    yaml: `
apiVersion: v1
kind: Secret
metadata: { name: s }`,
    status: "Current",
    message: "Resource is always ready",
  },
  {
    name: "CronJob is always ready, even with an empty status",
    yaml: `
apiVersion: batch/v1
kind: CronJob
metadata: { name: cj, generation: 1 }
status:`,
    status: "Current",
    message: "Resource is always ready",
  },
  {
    name: "PVC: pending",
    yaml: `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: pvc }
status: { phase: Pending }`,
    status: "InProgress",
    message: "PVC is not Bound. phase: Pending",
    reason: "NotBound",
  },
  {
    name: "PVC: no status",
    yaml: `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: pvc }`,
    status: "InProgress",
    message: "PVC is not Bound. phase: unknown",
  },
  {
    name: "PVC: bound",
    yaml: `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: pvc }
status: { phase: Bound }`,
    status: "Current",
    message: "PVC is Bound",
  },
  {
    name: "Service: default ClusterIP type",
    yaml: `
apiVersion: v1
kind: Service
metadata: { name: svc }`,
    status: "Current",
    message: "Service is ready",
  },
  {
    name: "Service: LoadBalancer without clusterIP",
    yaml: `
apiVersion: v1
kind: Service
metadata: { name: svc }
spec: { type: LoadBalancer }`,
    status: "InProgress",
    message: "ClusterIP not set. Service type: LoadBalancer",
    reason: "NoIPAssigned",
  },
  {
    name: "Service: LoadBalancer with clusterIP does not wait for ingress",
    yaml: `
apiVersion: v1
kind: Service
metadata: { name: svc }
spec: { type: LoadBalancer, clusterIP: 10.0.0.7 }
status: { loadBalancer: {} }`,
    status: "Current",
    message: "Service is ready",
  },
  {
    name: "PodDisruptionBudget: observed",
    yaml: `
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: { name: pdb, generation: 1 }
status: { observedGeneration: 1 }`,
    status: "Current",
    message: "AllowedDisruptions has been computed.",
  },
  {
    name: "PodDisruptionBudget: not yet observed",
    yaml: `
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: { name: pdb, generation: 2 }
status: { observedGeneration: 1 }`,
    status: "InProgress",
    message: "PodDisruptionBudget generation is 2, but latest observed generation is 1",
  },
];

const crd: Case[] = [
  {
    name: "CRD: no conditions is installing",
    yaml: `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: widgets.example.com, generation: 1 }`,
    status: "InProgress",
    message: "Install in progress",
    reason: "Installing",
  },
  {
    name: "CRD: Established=False reason Installing",
    yaml: `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: widgets.example.com }
status:
  conditions:
  - { type: NamesAccepted, status: "True", reason: NoConflicts }
  - { type: Established, status: "False", reason: Installing, message: "the initial names have been accepted" }`,
    status: "InProgress",
    message: "Install in progress",
  },
  {
    name: "CRD: names not accepted is Failed with the condition's message",
    yaml: `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: widgets.example.com }
status:
  conditions:
  - { type: NamesAccepted, status: "False", reason: MultipleConflicts, message: '"widgets" is already in use' }`,
    status: "Failed",
    message: '"widgets" is already in use',
    reason: "MultipleConflicts",
  },
  {
    name: "CRD: Established=False for another reason is Failed",
    yaml: `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: widgets.example.com }
status:
  conditions:
  - { type: Established, status: "False", reason: NotAccepted, message: "not all names are accepted" }`,
    status: "Failed",
    message: "not all names are accepted",
  },
  {
    name: "CRD: established",
    yaml: `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: widgets.example.com }
status:
  conditions:
  - { type: NamesAccepted, status: "True", reason: NoConflicts }
  - { type: Established, status: "True", reason: InitialNamesAccepted }`,
    status: "Current",
    message: "CRD is established",
  },
];

const configConnector: Case[] = [
  {
    name: "Config Connector: Ready=True",
    yaml: `
apiVersion: storage.cnrm.cloud.google.com/v1beta1
kind: StorageBucket
metadata: { name: b, generation: 2 }
status:
  observedGeneration: 2
  conditions:
  - { type: Ready, status: "True", reason: UpToDate, message: "The resource is up to date" }`,
    status: "Current",
    message: "Resource is Current",
  },
  {
    name: "Config Connector: Ready=False with a failure reason is Failed",
    yaml: `
apiVersion: storage.cnrm.cloud.google.com/v1beta1
kind: StorageBucket
metadata: { name: b, generation: 1 }
status:
  observedGeneration: 1
  conditions:
  - { type: Ready, status: "False", reason: UpdateFailed, message: "Update call failed: 403" }`,
    status: "Failed",
    message: "Update call failed: 403",
    reason: "UpdateFailed",
  },
  {
    name: "Config Connector: Ready=False with another reason is InProgress",
    yaml: `
apiVersion: sql.cnrm.cloud.google.com/v1beta1
kind: SQLInstance
metadata: { name: db, generation: 1 }
status:
  observedGeneration: 1
  conditions:
  - { type: Ready, status: "False", reason: DependencyNotReady, message: "reference not ready" }`,
    status: "InProgress",
    message: "reference not ready",
  },
  {
    name: "Config Connector: no Ready condition",
    yaml: `
apiVersion: storage.cnrm.cloud.google.com/v1beta1
kind: StorageBucket
metadata: { name: b, generation: 1 }
status: { observedGeneration: 1 }`,
    status: "InProgress",
    message: "Ready condition not set",
  },
  {
    name: "Config Connector: generation not observed",
    yaml: `
apiVersion: storage.cnrm.cloud.google.com/v1beta1
kind: StorageBucket
metadata: { name: b, generation: 2 }
status: { observedGeneration: 1 }`,
    status: "InProgress",
    message: "StorageBucket generation is 2, but latest observed generation is 1",
  },
  {
    name: "Config Connector: missing observedGeneration is Unknown",
    yaml: `
apiVersion: storage.cnrm.cloud.google.com/v1beta1
kind: StorageBucket
metadata: { name: b, generation: 1 }`,
    status: "Unknown",
    message: "status.ObservedGeneration not found",
  },
  {
    name: "Config Connector: missing generation is Unknown",
    yaml: `
apiVersion: storage.cnrm.cloud.google.com/v1beta1
kind: StorageBucket
metadata: { name: b }
status: { observedGeneration: 1 }`,
    status: "Unknown",
    message: "metadata.generation not found",
  },
  {
    name: "Config Connector: Stalled is not read, only Ready",
    yaml: `
apiVersion: storage.cnrm.cloud.google.com/v1beta1
kind: StorageBucket
metadata: { name: b, generation: 1 }
status:
  observedGeneration: 1
  conditions:
  - { type: Stalled, status: "True", message: "ignored" }
  - { type: Ready, status: "True" }`,
    status: "Current",
    message: "Resource is Current",
  },
  {
    name: "Config Connector: being deleted",
    yaml: `
apiVersion: storage.cnrm.cloud.google.com/v1beta1
kind: StorageBucket
metadata: { name: b, deletionTimestamp: "2024-05-01T10:00:00Z" }`,
    status: "Terminating",
    message: "Resource scheduled for deletion",
  },
  {
    name: "ConfigConnectorContext: healthy not set",
    yaml: `
apiVersion: core.cnrm.cloud.google.com/v1beta1
kind: ConfigConnectorContext
metadata: { name: configconnectorcontext.core.cnrm.cloud.google.com, namespace: team-a }`,
    status: "InProgress",
    message: "status.healthy property not set",
  },
  {
    name: "ConfigConnectorContext: unhealthy",
    yaml: `
apiVersion: core.cnrm.cloud.google.com/v1beta1
kind: ConfigConnectorContext
metadata: { name: ccc }
status: { healthy: false }`,
    status: "InProgress",
    message: "status.healthy is false",
  },
  {
    name: "ConfigConnectorContext: healthy",
    yaml: `
apiVersion: core.cnrm.cloud.google.com/v1beta1
kind: ConfigConnectorContext
metadata: { name: ccc }
status: { healthy: true }`,
    status: "Current",
    message: "status.healthy is true",
  },
  {
    name: "ConfigConnectorContext: healthy is a string",
    yaml: `
apiVersion: core.cnrm.cloud.google.com/v1beta1
kind: ConfigConnectorContext
metadata: { name: ccc }
status: { healthy: "true" }`,
    status: "Unknown",
    message: "looking up status.healthy from resource: .status.healthy is a string, expected a boolean",
  },
];

const cases: Case[] = [
  ...generic,
  ...malformed,
  ...deployment,
  ...statefulSet,
  ...daemonSet,
  ...replicaSet,
  ...pod,
  ...job,
  ...simpleKinds,
  ...crd,
  ...configConnector,
];

describe("computeStatus", () => {
  it.each(cases)("$name", (c) => {
    const obj = parse(c.yaml) as KubeObject;
    const res = computeStatus(obj, c.now ? { now: new Date(c.now) } : {});
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
    const stuck = computeStatus(parse(deployment[0]!.yaml) as KubeObject);
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
