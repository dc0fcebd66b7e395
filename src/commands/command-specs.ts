// Every command's flags, declared once: src/cli.ts registers them with commander, and each
// command receives them parsed and typed (FlagValues<typeof ...>). Defaults live here.

import { bool, duration, list, oneOf, optionalText, text, verbosity, wholeNumber, type FlagSpec, type FlagValues } from "./flag-spec.js";

/** Flags of `live` that every subcommand inherits. */
export const globalFlags = {
  kubeconfig: optionalText("--kubeconfig <path>", "path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)"),
  context: optionalText("--context <name>", "the kubeconfig context to use"),
  namespace: optionalText("-n, --namespace <namespace>", "namespace for objects without one; objects in other namespaces are refused, as in kpt"),
  v: verbosity("-v, --v [level]", "verbose errors: show each error's detail and cause"),
  color: { flags: "--no-color", description: "never colour the output (also: NO_COLOR=1)", parse: (v: unknown) => v !== false } satisfies FlagSpec<boolean>,
};
export type GlobalFlags = FlagValues<typeof globalFlags>;

function output<T extends string>(values: readonly T[], defaultValue: T): FlagSpec<T> {
  const words = values.join(", ").replace(/, (\w+)$/, " or $1");
  return oneOf("--output <format>", words, values, defaultValue, `unknown output type: use ${words}`);
}
const runOutput = () => output(["events", "table", "json"] as const, "events");
const inventoryPolicy = (description: string) =>
  oneOf("--inventory-policy <policy>", description, ["strict", "adopt", "force-adopt"] as const, "strict", "inventory policy must be one of strict, adopt");
const propagation = (name: string, description: string, what: string) =>
  oneOf(`--${name} <policy>`, description, ["Background", "Foreground", "Orphan"] as const, "Background", `${what} propagation policy must be one of Background, Foreground, Orphan`);
const statusPolicy = (description: string) => oneOf("--status-policy <policy>", description, ["all", "none"] as const, "all", "status policy must be one of all, none");
const historyLimit = () => wholeNumber("--history-limit <n>", "change records kept for this inventory, newest first (default 200; 0 records nothing)", 0);
const yes = (): FlagSpec<boolean> => ({ ...bool("yes", "do not ask before pruning or deleting (the question comes only in a terminal)"), flags: "-y, --yes" });
const local = () => bool("local", "preview without the server's dry runs: computed locally, as a read-only identity's preview is (no webhooks, no defaulting)");
const fieldManager = () => text("--field-manager <name>", "field manager for server-side apply", "kubectl");

export const initFlags = {
  name: optionalText("--name <name>", "inventory object name (default: inventory-<8 random digits>)"),
  inventoryId: optionalText("--inventory-id <id>", "inventory id (default: generated from namespace, name and time)"),
  force: bool("force", "overwrite existing inventory information"),
  quiet: bool("quiet", "print nothing on success"),
  rgFile: text("--rg-file <file>", "file name of the ResourceGroup", "resourcegroup.yaml"),
};

export const applyFlags = {
  dryRun: bool("dry-run", "show what would change without changing anything (client-side; server-side with --server-side)"),
  serverSide: bool("server-side", "use server-side apply"),
  fieldManager: fieldManager(),
  forceConflicts: bool("force-conflicts", "server-side apply: take over fields other managers own"),
  reconcileTimeout: duration("--reconcile-timeout <duration>", "how long to wait for each wave to reconcile (e.g. 2m); 0 waits as long as it takes"),
  pruneTimeout: duration("--prune-timeout <duration>", "how long to wait for pruned objects to be gone; 0 waits as long as it takes"),
  prunePropagationPolicy: propagation("prune-propagation-policy", "Background, Foreground or Orphan", "prune"),
  inventoryPolicy: inventoryPolicy("strict: touch only objects this inventory owns; adopt: also take unowned ones"),
  installResourceGroup: bool("install-resource-group", "install the ResourceGroup CRD when it is missing", true),
  output: output(["events", "table", "json", "markdown"] as const, "events"),
  local: local(),
  showStatusEvents: bool("show-status-events", "also print each status change"),
  statusPolicy: statusPolicy("all: record each object's status in the inventory; none: do not"),
  concurrency: wholeNumber("--concurrency <n>", "objects applied or deleted at once within a wave (default 16)", 1),
  pollPeriod: duration("--poll-period <duration>", "poll period where the cluster refuses watches", "2s"),
  historyLimit: historyLimit(),
  yes: yes(),
};

export const destroyFlags = {
  dryRun: bool("dry-run", "show what would be deleted without deleting anything"),
  inventoryPolicy: inventoryPolicy("strict or adopt"),
  output: runOutput(),
  showStatusEvents: bool("show-status-events", "also print each status change"),
  statusPolicy: statusPolicy("all or none"),
  deletePropagationPolicy: propagation("delete-propagation-policy", "Background, Foreground or Orphan", "delete"),
  deleteTimeout: duration("--delete-timeout <duration>", "how long to wait for each wave to be gone; 0 waits as long as it takes"),
  concurrency: wholeNumber("--concurrency <n>", "objects deleted at once within a wave (default 16)", 1),
  historyLimit: historyLimit(),
  yes: yes(),
};

export const diffFlags = {
  serverSide: bool("server-side", "preview a server-side apply"),
  fieldManager: fieldManager(),
  forceConflicts: bool("force-conflicts", "server-side apply: take over fields other managers own"),
  inventoryPolicy: inventoryPolicy("strict or adopt, as for apply"),
  output: output(["text", "json", "markdown"] as const, "text"),
  local: local(),
  concurrency: wholeNumber("--concurrency <n>", "dry runs at once (default 16)", 1),
};

export const statusFlags = {
  pollPeriod: duration("--poll-period <duration>", "poll period where the cluster refuses watches", "2s"),
  pollUntil: oneOf("--poll-until <when>", "known, current, deleted or forever", ["known", "current", "deleted", "forever"] as const, "known", "pollUntil must be one of known,current,deleted,forever"),
  timeout: duration("--timeout <duration>", "stop after this long (exit 0)"),
  output: runOutput(),
  statuses: list("--statuses <list>", "only show objects with these statuses (comma-separated)"),
  namespaces: list("--namespaces <list>", "only show objects in these namespaces (comma-separated)"),
};

export const historyFlags = { output: output(["table", "json"] as const, "table") };
export const listFlags = { output: output(["table", "json"] as const, "table") };
export const noFlags = {};
