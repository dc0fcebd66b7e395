import { afterEach, describe, expect, it, vi } from "vitest";
import type { StatusEvent } from "../../src/model/events.js";
import type { ObjRef } from "../../src/model/ref.js";
import { resolveColor } from "../../src/print/color.js";
import { printLiveStatus, type StatusPrintOptions } from "../../src/print/status-printer.js";
import { captureStream, channel, cm2, dep, liveObject, ns, ref, streamOf, svc } from "./print-scenarios.js";

const NOW = new Date("2026-11-21T23:35:02.400Z");
const ERASE = "\x1b[1A\x1b[2K\r";

/** The objects of one inventory, as a local package's `live status` follows them. */
const inventory = (refs: ObjRef[], inventoryName = "inventory-kptjs") => refs.map((r) => ({ ref: r, inventoryName }));

function printStatus(events: AsyncIterable<StatusEvent>, opts: Partial<StatusPrintOptions> = {}) {
  const out = captureStream();
  const result = printLiveStatus(events, {
    output: "events",
    stdout: out.stream,
    color: false,
    tty: false,
    objects: inventory([svc, dep, ns, cm2]),
    now: () => NOW,
    ...opts,
  });
  return { result, text: out.text };
}

const status = (r: StatusEvent["ref"], s: StatusEvent["status"], message: string, object?: StatusEvent["object"]): StatusEvent => ({
  type: "status",
  ref: r,
  status: s,
  message,
  ...(object ? { object } : {}),
});

afterEach(() => {
  vi.useRealTimers();
});

describe("status printer: events", () => {
  it("prints the book's lines, and only when an object's status or message changed", async () => {
    const p = printStatus(
      streamOf([
        status(svc, "Current", "Service is ready"),
        status(dep, "InProgress", "Available: 0/1"),
        status(svc, "Current", "Service is ready"),
        status(dep, "InProgress", "Available: 0/1"),
        status(dep, "Current", "Deployment is available. Replicas: 1"),
      ]),
    );
    await p.result;
    expect(p.text()).toBe(
      [
        "service/web is Current: Service is ready",
        "deployment.apps/web is InProgress: Available: 0/1",
        "deployment.apps/web is Current: Deployment is available. Replicas: 1",
      ].join("\n") + "\n",
    );
  });
});

describe("status printer: several inventories (--inv-type remote)", () => {
  const objects = [...inventory([ns, cm2], "inv-a"), ...inventory([dep, cm2], "inv-b")];
  const events = () => streamOf([status(ns, "Current", "Resource is current"), status(cm2, "Current", "Resource is always ready"), status(dep, "InProgress", "Available: 0/1")]);

  it("names each line's inventory and namespace as the binary does; an object two inventories list, once for each", async () => {
    const p = printStatus(events(), { objects, inventoryInLines: true });
    await p.result;
    expect(p.text()).toBe(
      [
        "inv-a/namespace//kptjs is Current: Resource is current",
        "inv-a/configmap/kptjs/cm2 is Current: Resource is always ready",
        "inv-b/configmap/kptjs/cm2 is Current: Resource is always ready",
        "inv-b/deployment.apps/kptjs/web is InProgress: Available: 0/1",
      ].join("\n") + "\n",
    );
  });

  it("json: each line's inventory-name is the inventory listing the object", async () => {
    const p = printStatus(events(), { objects, output: "json" });
    await p.result;
    expect(p.text().trim().split("\n").map((l) => { const o = JSON.parse(l) as Record<string, string>; return `${o["inventory-name"]} ${o.kind}/${o.name}`; })).toEqual([
      "inv-a Namespace/kptjs",
      "inv-a ConfigMap/cm2",
      "inv-b ConfigMap/cm2",
      "inv-b Deployment/web",
    ]);
  });

  it("table: one row per inventory and object, its inventory in INVENTORY_NAME", async () => {
    const p = printStatus(events(), { objects, output: "table" });
    await p.result;
    expect(p.text().split("\n").slice(1, -1).map((row) => row.replace(/ {2,}/g, " | ").trim())).toEqual([
      "| Namespace/kptjs | Current | - | - | Resource is current | inv-a |",
      "kptjs | ConfigMap/cm2 | Current | - | - | Resource is always ready | inv-a |",
      "kptjs | ConfigMap/cm2 | Current | - | - | Resource is always ready | inv-b |",
      "kptjs | Deployment/web | InProgress | - | - | Available: 0/1 | inv-b |",
    ]);
  });
});

describe("status printer: --statuses", () => {
  const events = () => streamOf([status(svc, "Current", "Service is ready"), status(dep, "InProgress", "Available: 0/1"), status(dep, "Current", "Deployment is available. Replicas: 1")]);
  const statuses = new Set(["inprogress"]);

  it.each(["events", "json"] as const)("%s: prints only the statuses asked for", async (output) => {
    const p = printStatus(events(), { output, statuses });
    await p.result;
    const lines = p.text().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(output === "json" ? '"status":"InProgress"' : "deployment.apps/web is InProgress");
  });

  it("table: hides the rows in other statuses, Unknown ones before their first status included", async () => {
    const ch = channel<StatusEvent>();
    const p = printStatus(ch.iterable, { output: "table", objects: inventory([svc, dep]), statuses: new Set(["inprogress", "failed"]) });
    ch.push(status(dep, "InProgress", "Available: 0/1"));
    ch.close();
    await p.result;
    const rows = p.text().split("\n").slice(1, -1);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(/^kptjs\s+Deployment\/web\s+InProgress/);
  });
});

describe("status printer: json", () => {
  it("prints the binary's keys, sorted, with the inventory name", async () => {
    const p = printStatus(streamOf([status(dep, "Current", "Deployment is available. Replicas: 1"), status(ns, "Current", "Resource is current")]), { output: "json" });
    await p.result;
    expect(p.text()).toBe(
      '{"group":"apps","inventory-name":"inventory-kptjs","kind":"Deployment","message":"Deployment is available. Replicas: 1","name":"web","namespace":"kptjs","status":"Current","timestamp":"2026-11-21T23:35:02Z","type":"status"}\n' +
        '{"group":"","inventory-name":"inventory-kptjs","kind":"Namespace","message":"Resource is current","name":"kptjs","namespace":"","status":"Current","timestamp":"2026-11-21T23:35:02Z","type":"status"}\n',
    );
  });

  it("ends with an error line and rethrows when polling fails", async () => {
    const failure = new Error("polling for status failed: forbidden");
    const p = printStatus(streamOf([status(svc, "Current", "Service is ready")], failure), { output: "json" });
    await expect(p.result).rejects.toBe(failure);
    expect(p.text().trim().split("\n").at(-1)).toBe('{"error":"polling for status failed: forbidden","timestamp":"2026-11-21T23:35:02Z","type":"error"}');
  });
});

describe("status printer: table", () => {
  const header =
    "NAMESPACE   RESOURCE                                  STATUS      CONDITIONS                                AGE     MESSAGE                                   INVENTORY_NAME                ";

  it("lists every inventory object, Unknown until seen, and prints once when not on a terminal", async () => {
    const p = printStatus(
      streamOf([
        status(dep, "Current", "Deployment is available. Replicas: 1", liveObject(dep, "2026-11-21T23:33:02Z", [{ type: "Available", status: "True" }])),
        status(cm2, "NotFound", "Resource not found"),
      ]),
      { output: "table" },
    );
    await p.result;
    expect(p.text().split("\n")).toEqual([
      header,
      "            Namespace/kptjs                           Unknown     -                                         -                                                 inventory-kptjs               ",
      "kptjs       ConfigMap/cm2                             NotFound    -                                         -       Resource not found                        inventory-kptjs               ",
      "kptjs       Service/web                               Unknown     -                                         -                                                 inventory-kptjs               ",
      "kptjs       Deployment/web                            Current     Available                                 2m      Deployment is available. Replicas: 1      inventory-kptjs               ",
      "",
    ]);
  });

  it("redraws every second on a terminal", async () => {
    vi.useFakeTimers();
    const ch = channel<StatusEvent>();
    const p = printStatus(ch.iterable, { output: "table", tty: true, objects: inventory([svc]) });
    await vi.advanceTimersByTimeAsync(0);
    const first = p.text();
    expect(first.split("\n")).toHaveLength(3);
    ch.push(status(svc, "Current", "Service is ready"));
    await vi.advanceTimersByTimeAsync(999);
    expect(p.text()).toBe(first);
    await vi.advanceTimersByTimeAsync(1);
    expect(p.text().slice(first.length)).toMatch(new RegExp(`^${ERASE.replace(/\[/g, "\\[")}${ERASE.replace(/\[/g, "\\[")}NAMESPACE`));
    expect(p.text()).toContain("Service is ready");
    ch.close();
    await p.result;
  });

  it("truncates long names to the resource column", async () => {
    const long = ref("", "ConfigMap", "a-very-long-namespace", "x".repeat(60));
    const p = printStatus(streamOf([status(long, "Current", "m".repeat(50))]), { output: "table", objects: inventory([long]) });
    await p.result;
    const row = p.text().split("\n")[1] ?? "";
    expect(row.slice(0, 12)).toBe("a-very-lon  ");
    expect(row.slice(12, 54)).toBe(`ConfigMap/${"x".repeat(30)}  `);
    expect(row).toContain(`${"m".repeat(40)}  inventory-kptjs`);
  });
});

describe("resolveColor", () => {
  it.each([
    ["a terminal", {}, true, undefined, true],
    ["a pipe", {}, false, undefined, false],
    ["NO_COLOR on a terminal", { NO_COLOR: "1" }, true, undefined, false],
    ["an empty NO_COLOR", { NO_COLOR: "" }, true, undefined, true],
    ["FORCE_COLOR in a pipe", { FORCE_COLOR: "1" }, false, undefined, true],
    ["FORCE_COLOR=0 on a terminal", { FORCE_COLOR: "0" }, true, undefined, false],
    ["FORCE_COLOR=false on a terminal", { FORCE_COLOR: "false" }, true, undefined, false],
    ["FORCE_COLOR over NO_COLOR", { FORCE_COLOR: "1", NO_COLOR: "1" }, false, undefined, true],
    ["--no-color over FORCE_COLOR", { FORCE_COLOR: "1" }, true, false, false],
    ["--color in a pipe", { NO_COLOR: "1" }, false, true, true],
  ] as const)("%s", (_name, env, isTTY, flag, expected) => {
    expect(resolveColor({ env, isTTY, ...(flag === undefined ? {} : { flag }) })).toBe(expected);
  });
});
