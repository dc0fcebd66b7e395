// Every command's flags, declared once: src/cli.ts registers them with commander, and each
// command receives them parsed and typed (FlagValues<typeof ...>). The flags that set an engine
// option are keyed by its name and take its default from ENGINE_DEFAULTS (engine/options.ts),
// `live status`'s by FollowStatusOptions': a command passes them on without copying a field.

import { ENGINE_DEFAULTS, type EngineOptions } from "../engine/options.js";
import { DEFAULT_MAX_CLUSTERS_AT_ONCE } from "../fleet/options.js";
import type { FollowStatusOptions } from "../status/follow-status.js";
import { UsageError } from "../model/errors.js";
import { KSTATUS_VALUES } from "../model/events.js";
import { bool, completing, duration, list, oneOf, optionalText, repeated, text, verbosity, wholeNumber, type FlagSpec, type FlagValues } from "./flag-spec.js";

/** Flags keyed by the engine option they set, each parsed into that option's type. */
type EngineFlags = { [K in keyof EngineOptions]?: FlagSpec<EngineOptions[K]> };

/**
 * How to reach the cluster: kubectl's connection flags, with kubectl's meaning (each overrides
 * the kubeconfig; --server, --token and --certificate-authority work with no kubeconfig at all).
 * kpt's live commands accept every one of them.
 */
export const connectionFlags = {
  kubeconfig: completing("file", optionalText("--kubeconfig <path>", "path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)")),
  context: completing("context", optionalText("--context <name>", "the kubeconfig context to use")),
  cluster: optionalText("--cluster <name>", "the kubeconfig cluster to use (instead of the context's)"),
  user: optionalText("--user <name>", "the kubeconfig user to use (instead of the context's)"),
  server: optionalText("-s, --server <address>", "the address and port of the Kubernetes API server"),
  token: optionalText("--token <token>", "bearer token for authentication to the API server"),
  username: optionalText("--username <name>", "username for basic authentication to the API server"),
  password: optionalText("--password <password>", "password for basic authentication to the API server"),
  certificateAuthority: completing("file", optionalText("--certificate-authority <path>", "path to a cert file for the certificate authority")),
  clientCertificate: completing("file", optionalText("--client-certificate <path>", "path to a client certificate file for TLS")),
  clientKey: completing("file", optionalText("--client-key <path>", "path to a client key file for TLS")),
  insecureSkipTlsVerify: bool("insecure-skip-tls-verify", "do not check the server's certificate (insecure)"),
  tlsServerName: optionalText("--tls-server-name <name>", "server name for certificate validation (default: the server's host name)"),
  as: optionalText("--as <user>", "username to impersonate for the operation (a user or a service account)"),
  asGroup: repeated("--as-group <group>", "group to impersonate for the operation; repeat for several groups"),
  asUid: optionalText("--as-uid <uid>", "UID to impersonate for the operation"),
  requestTimeout: duration("--request-timeout <duration>", "how long to wait for a single server request (e.g. 1s, 2m); 0 waits as long as it takes", "0"),
  disableCompression: bool("disable-compression", "do not ask the server to compress its responses"),
  cacheDir: completing("directory", optionalText("--cache-dir <path>", "directory of the discovery and OpenAPI cache (default: ~/.cache/kpt-ts/http; \"off\" disables it)")),
};

/** Flags of `live` that every subcommand inherits (shown under "Global Flags" in each command's help). */
export const globalFlags = {
  ...connectionFlags,
  namespace: completing("namespace", optionalText("-n, --namespace <namespace>", "namespace for objects without one; objects in other namespaces are refused, as in kpt")),
  v: verbosity("-v, --v [level]", "verbose errors: show each error's detail and cause"),
  color: { flags: "--no-color", description: "never colour the output (also: NO_COLOR=1)", parse: (v: unknown) => v !== false } satisfies FlagSpec<boolean>,
};
export type GlobalFlags = FlagValues<typeof globalFlags>;

/**
 * kpt's own global flags, on every command (`kpt-ts --truncate-output=false live apply` and
 * `kpt-ts live apply --truncate-output=false` alike): accepted and checked as kpt checks them, so
 * kpt's scripts run; neither changes anything kpt-ts prints (see each description).
 */
export const rootFlags = {
  // kpt's root also takes --kubeconfig and -v before the command (`kpt --kubeconfig k live apply`):
  // the same flags as `live`'s, shown there (the root's copies are hidden so help lists each once).
  kubeconfig: { ...connectionFlags.kubeconfig, hidden: true },
  v: { ...globalFlags.v, hidden: true },
  truncateOutput: bool("truncate-output", "kpt's flag, accepted: kpt truncates only its functions' output with it (kpt fn), which kpt-ts does not run", true),
  logFlushFrequencyMs: positive(duration("--log-flush-frequency <duration>", "kpt's flag, accepted: the longest time between flushes of kpt's log; kpt-ts writes each line at once", "5s")),
};

/** A duration that must be more than 0 (kpt stops with a panic on 0 or less). */
function positive(spec: FlagSpec<number | undefined>): FlagSpec<number> {
  return {
    ...spec,
    parse: (v, flag) => {
      const ms = spec.parse(v, flag);
      if (ms === undefined || ms <= 0) throw new UsageError(`--${flag} must be more than 0 (got ${JSON.stringify(String(v))})`);
      return ms;
    },
  };
}

/** One of a fixed set of values, or absent. */
function optionalOneOf<T extends string>(flags: string, description: string, values: readonly T[]): FlagSpec<T | undefined> {
  return {
    flags,
    description,
    completion: { values },
    parse: (v, flag) => {
      if (v === undefined) return undefined;
      const s = String(v);
      if (!(values as readonly string[]).includes(s)) throw new UsageError(`--${flag} must be one of ${values.join(", ")} (got ${JSON.stringify(s)})`);
      return s as T;
    },
  };
}

function output<T extends string>(values: readonly T[], defaultValue: T): FlagSpec<T> {
  const words = values.join(", ").replace(/, (\w+)$/, " or $1");
  return oneOf("--output <format>", words, values, defaultValue, `unknown output type: use ${words}`);
}
const runOutput = () => output(["events", "table", "json"] as const, "events");
const D = ENGINE_DEFAULTS;
const inventoryPolicy = (description: string) =>
  oneOf("--inventory-policy <policy>", description, ["strict", "adopt", "force-adopt"] as const, D.inventoryPolicy, "inventory policy must be one of strict, adopt");
const propagation = (name: string, description: string, what: string) =>
  oneOf(`--${name} <policy>`, description, ["Background", "Foreground", "Orphan"] as const, D.prunePropagationPolicy, `${what} propagation policy must be one of Background, Foreground, Orphan`);
const statusPolicy = (description: string) => oneOf("--status-policy <policy>", description, ["all", "none"] as const, D.statusPolicy, "status policy must be one of all, none");
const historyLimit = () => wholeNumber("--history-limit <n>", `change records kept for this inventory, newest first (default ${D.historyLimit}; 0 records nothing)`, 0);
const concurrency = (what: string) => wholeNumber("--concurrency <n>", `${what} (default ${D.concurrency})`, 1);
const pollPeriod = () => duration("--poll-period <duration>", "poll period where the cluster refuses watches", `${D.pollPeriodMs / 1000}s`);
const yes = (): FlagSpec<boolean> => ({ ...bool("yes", "do not ask before pruning or deleting (the question comes only in a terminal)"), flags: "-y, --yes" });
const healthRules = () => completing("file", repeated("--health-rules <file>", "health rules for custom kinds (a HealthRules YAML file, see docs/health-rules.md); may be repeated; they win over the package's"));
/** `command`: the command whose help shows it, named in its example. */
const rgFile = (command: "apply" | "destroy" | "status") =>
  completing("file", optionalText("--rg-file <file>", `the file holding the ResourceGroup, when the package or stream has none (kpt#4580): kustomize build | kpt-ts live ${command} - --rg-file inventory.yaml`));
const local = () => bool("local", "preview without the server's dry runs: computed locally, as a read-only identity's preview is (no webhooks, no defaulting)");
const fieldManager = () => text("--field-manager <name>", "field manager for server-side apply", D.fieldManager);
const applySet = () =>
  completing(
    "inventory",
    optionalText("--applyset <parent>", "use an ApplySet (KEP-3659) as the inventory, as kubectl does: [RESOURCE][.GROUP]/NAME of its parent (secrets/NAME, the default, or configmaps/NAME) in the namespace -n names; for a package without an inventory of its own"),
  );
const lockTimeout = () => duration("--lock-timeout <duration>", "wait this long for another run of the same inventory to finish (e.g. 2m); by default a second run fails at once (exit 2), naming the holder");
const applySetParent = () => oneOf("--applyset-parent <resource>", "the ApplySet's parent: secrets or configmaps", ["secrets", "configmaps"] as const, "secrets", "applyset-parent must be one of secrets, configmaps");
// Many clusters in one run (docs/fleet.md).
const contexts = () =>
  completing("context", list("--contexts <list>", "run on each of these kubeconfig contexts, each with its own inventory: comma-separated names or globs ('prod-*'); lines and JSON events name their cluster, a table sums up each (docs/fleet.md)"));
const maxClustersAtOnce = () => wholeNumber("--max-clusters-at-once <n>", `with --contexts: clusters run at once at most (default ${DEFAULT_MAX_CLUSTERS_AT_ONCE})`, 1);
const rollout = () =>
  optionalText("--rollout <waves>", "run the clusters in waves: ';' between waves, ',' within one, names or globs ('canary-*;*'); a wave starts only when every cluster of the one before succeeded (applied and reconciled)");
const allowAnyCluster = () => bool("allow-any-cluster", "deploy even to a cluster the package's kpt-ts.dev/clusters annotation does not pin (docs/fleet.md)");

export const initFlags = {
  name: optionalText("--name <name>", "inventory object name (default: inventory-<8 random digits>)"),
  inventoryKind: oneOf(
    "--inventory-kind <kind>",
    "resourcegroup (kpt's, a listing CRD object) or applyset (KEP-3659: a Secret or ConfigMap parent, members found by label; no CRD, no size limit); see docs/inventories.md",
    ["resourcegroup", "applyset"] as const,
    "resourcegroup",
    "inventory-kind must be one of resourcegroup, applyset",
  ),
  applysetParent: applySetParent(),
  inventoryId: optionalText("--inventory-id <id>", "inventory id (default: generated from namespace, name and time)"),
  force: bool("force", "overwrite existing inventory information"),
  quiet: bool("quiet", "print nothing on success"),
  rgFile: completing("file", text("--rg-file <file>", "file name of the inventory (applyset.yaml, not the default, with --inventory-kind applyset)", "resourcegroup.yaml")),
};

/** The flags of a run on many clusters, none an engine option. */
type FleetFlag = "contexts" | "rollout" | "maxClustersAtOnce" | "allowAnyCluster";

/** Flags keyed by the engine option they set (checked against EngineOptions), and the command's own, named. */
type CommandFlags<Own extends string> = Omit<EngineFlags, Own> & Record<Own, FlagSpec<unknown>>;

export const applyFlags = {
  rgFile: rgFile("apply"),
  applySet: applySet(),
  lockTimeoutMs: lockTimeout(),
  dryRun: bool("dry-run", "show what would change without changing anything (client-side; server-side with --server-side)"),
  serverSide: bool("server-side", "use server-side apply", D.serverSide),
  fieldManager: fieldManager(),
  forceConflicts: bool("force-conflicts", "server-side apply: take over fields other managers own", D.forceConflicts),
  reconcileTimeoutMs: duration("--reconcile-timeout <duration>", "how long to wait for each wave to reconcile (e.g. 2m); 0 waits as long as it takes"),
  wait: bool("wait", "wait for each wave to reconcile and for pruned objects to be gone; --wait=false returns right after the writes and prunes (kpt#4599)", D.wait),
  waitForJobs: bool("wait-for-jobs", "wait for every Job to complete (not only to start) and fail when one fails, as kpt-ts.dev/wait: complete does for one (docs/lifecycle.md)", D.waitForJobs),
  pruneTimeoutMs: duration("--prune-timeout <duration>", "how long to wait for pruned objects to be gone; 0 waits as long as it takes"),
  prunePropagationPolicy: propagation("prune-propagation-policy", "Background, Foreground or Orphan", "prune"),
  inventoryPolicy: inventoryPolicy("strict: touch only objects this inventory owns; adopt: also take unowned ones"),
  installResourceGroup: bool("install-resource-group", "install the ResourceGroup CRD when it is missing", D.installResourceGroup),
  output: output(["events", "table", "json", "markdown"] as const, "events"),
  local: local(),
  showStatusEvents: bool("show-status-events", "also print each status change"),
  statusPolicy: statusPolicy("all: record each object's status in the inventory; none: do not"),
  concurrency: concurrency("objects applied or deleted at once within a wave"),
  pollPeriodMs: pollPeriod(),
  healthRules: healthRules(),
  historyLimit: historyLimit(),
  yes: yes(),
  contexts: contexts(),
  rollout: rollout(),
  maxClustersAtOnce: maxClustersAtOnce(),
  allowAnyCluster: allowAnyCluster(),
} satisfies CommandFlags<"rgFile" | "applySet" | "dryRun" | "output" | "local" | "showStatusEvents" | "healthRules" | "yes" | FleetFlag>;

export const destroyFlags = {
  rgFile: rgFile("destroy"),
  applySet: applySet(),
  lockTimeoutMs: lockTimeout(),
  dryRun: bool("dry-run", "show what would be deleted without deleting anything"),
  inventoryPolicy: inventoryPolicy("strict or adopt"),
  output: runOutput(),
  showStatusEvents: bool("show-status-events", "also print each status change"),
  statusPolicy: statusPolicy("all or none"),
  // A destroy's deletes are the engine's prune step.
  prunePropagationPolicy: propagation("delete-propagation-policy", "Background, Foreground or Orphan", "delete"),
  pruneTimeoutMs: duration("--delete-timeout <duration>", "how long to wait for each wave to be gone; 0 waits as long as it takes"),
  concurrency: concurrency("objects deleted at once within a wave"),
  healthRules: healthRules(),
  historyLimit: historyLimit(),
  yes: yes(),
  contexts: contexts(),
  rollout: rollout(),
  maxClustersAtOnce: maxClustersAtOnce(),
  allowAnyCluster: allowAnyCluster(),
} satisfies CommandFlags<"rgFile" | "applySet" | "dryRun" | "output" | "showStatusEvents" | "healthRules" | "yes" | FleetFlag>;

/** `live diff`: the options of the apply it previews. */
export const diffFlags = {
  applySet: applySet(),
  serverSide: bool("server-side", "preview a server-side apply", D.serverSide),
  fieldManager: fieldManager(),
  forceConflicts: bool("force-conflicts", "server-side apply: take over fields other managers own", D.forceConflicts),
  inventoryPolicy: inventoryPolicy("strict or adopt, as for apply"),
  output: output(["text", "json", "markdown"] as const, "text"),
  local: local(),
  concurrency: concurrency("dry runs at once"),
  contexts: contexts(),
  maxClustersAtOnce: maxClustersAtOnce(),
} satisfies CommandFlags<"applySet" | "output" | "local" | "contexts" | "maxClustersAtOnce">;

/** `live status`: followStatus' options (keyed as FollowStatusOptions) and its own. */
export const statusFlags = {
  rgFile: rgFile("status"),
  applySet: applySet(),
  pollPeriodMs: pollPeriod(),
  pollUntil: oneOf("--poll-until <when>", "known, current, deleted or forever", ["known", "current", "deleted", "forever"] as const, "known", "pollUntil must be one of known,current,deleted,forever"),
  timeoutMs: duration("--timeout <duration>", "stop after this long (exit 0)"),
  output: runOutput(),
  invType: oneOf(
    "--inv-type <type>",
    "local: the package's inventory; remote: every inventory in the cluster, no package needed (as kpt)",
    ["local", "remote"] as const,
    "local",
    "inv-type flag should be either local or remote",
  ),
  invNames: completing("inventory", list("--inv-names <list>", "with --inv-type remote: only these inventories (comma-separated names)")),
  statuses: list("--statuses <list>", "only show objects with these statuses (comma-separated, any case)", KSTATUS_VALUES),
  namespaces: completing("namespace", list("--namespaces <list>", "only show objects in these namespaces (comma-separated; an empty name, as in \",app\", selects cluster-scoped objects)")),
  healthRules: healthRules(),
  contexts: contexts(),
  maxClustersAtOnce: maxClustersAtOnce(),
} satisfies { [K in keyof FollowStatusOptions]?: FlagSpec<FollowStatusOptions[K]> } & Record<"rgFile" | "applySet" | "output" | "invType" | "invNames" | "statuses" | "namespaces" | "healthRules" | "contexts" | "maxClustersAtOnce", FlagSpec<unknown>>;

export const migrateFlags = {
  dryRun: bool("dry-run", "do not actually migrate, but show steps"),
  force: bool("force", "overwrite an existing ResourceGroup file (ConfigMap inventories)"),
  name: optionalText("--name <name>", "ResourceGroup name for a ConfigMap inventory (default: the ConfigMap's; a Kptfile inventory keeps its name); with --to, the new inventory's name (default: the old one's)"),
  rgFile: completing("file", text("--rg-file <file>", "file name of the new inventory (applyset.yaml, not the default, with --to applyset)", "resourcegroup.yaml")),
  to: optionalOneOf("--to <kind>", "applyset (from a ResourceGroup) or resourcegroup (from an ApplySet): every object is kept, only its inventory marks change (docs/inventories.md)", ["resourcegroup", "applyset"] as const),
  applysetParent: applySetParent(),
  lockTimeoutMs: lockTimeout(),
};

export const historyFlags = { output: output(["table", "json"] as const, "table"), applySet: applySet() };
export const listFlags = { output: output(["table", "json"] as const, "table") };
export const noFlags = {};

/** Each command's `--help` examples (shown after the flags): [what it does, the command]. */
export const commandExamples: Record<string, [string, string][]> = {
  "live init": [
    ["write resourcegroup.yaml into the package in my-dir", "kpt-ts live init my-dir"],
    ["name the inventory and its namespace", "kpt-ts live init --name my-app --namespace app my-dir"],
    ["an ApplySet inventory instead (no CRD, no size limit: applyset.yaml)", "kpt-ts live init --inventory-kind applyset --name my-app --namespace app my-dir"],
  ],
  "live apply": [
    ["apply the package in the current directory", "kpt-ts live apply"],
    ["wait up to 15 minutes for everything to reconcile", "kpt-ts live apply --reconcile-timeout=15m my-dir"],
    ["write and prune, then return without waiting", "kpt-ts live apply --wait=false my-dir"],
    ["apply a rendered stream, the inventory kept in a file", "kustomize build overlays/prod | kpt-ts live apply - --rg-file inventory.yaml"],
    ["apply a package without an inventory file, as kubectl --applyset does", "kpt-ts live apply --applyset secrets/my-app -n app my-dir"],
    ["wait up to 5 minutes for another run of the package to finish", "kpt-ts live apply --lock-timeout=5m my-dir"],
    ["apply to every prod-* context, the canaries first, then the rest", "kpt-ts live apply --contexts 'prod-*' --rollout 'prod-canary-*;*' my-dir"],
  ],
  "live destroy": [["delete everything the package's inventory lists", "kpt-ts live destroy my-dir"], ["the same for a stream", "kustomize build . | kpt-ts live destroy - --rg-file inventory.yaml"]],
  "live status": [
    ["each object's status, once", "kpt-ts live status my-dir"],
    ["watch until everything is Current, at most 5 minutes", "kpt-ts live status --poll-until=current --timeout=5m my-dir"],
    ["every package's objects in the cluster, grouped by inventory (no package directory)", "kpt-ts live status --inv-type remote"],
    ["two inventories' objects in two namespaces, only those not yet Current", "kpt-ts live status --inv-type remote --inv-names inv1,inv2 --namespaces ns1,ns2 --statuses InProgress,Failed"],
  ],
  "live diff": [
    ["what the next apply would change", "kpt-ts live diff my-dir"],
    ["as JSON, for a pipeline gate", "kpt-ts live diff --output json my-dir"],
    ["on two clusters, as Markdown for a pull request", "kpt-ts live diff --contexts prod-eu,prod-us --output markdown my-dir"],
  ],
  "live history": [["the package's changes, newest first", "kpt-ts live history my-dir"]],
  "live list": [["every inventory in the cluster", "kpt-ts live list"], ["those in one namespace, as JSON", "kpt-ts live list -n app --output json"]],
  "live migrate": [
    ["move the Kptfile's or a ConfigMap's inventory to resourcegroup.yaml", "kpt-ts live migrate my-dir"],
    ["show the steps without changing anything", "kpt-ts live migrate --dry-run my-dir"],
    ["move a ResourceGroup package to an ApplySet (and back), keeping every object", "kpt-ts live migrate --to applyset my-dir"],
  ],
  "live install-resource-group": [["install the ResourceGroup CRD (needs cluster-admin)", "kpt-ts live install-resource-group"]],
  completion: [["bash, for this shell", "source <(kpt-ts completion bash)"], ["fish, for every session", "kpt-ts completion fish > ~/.config/fish/completions/kpt-ts.fish"]],
  version: [["print kpt-ts' version", "kpt-ts version"]],
  help: [["apply's flags and examples (the same as kpt-ts live apply --help)", "kpt-ts help live apply"]],
};
