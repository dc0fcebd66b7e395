// The CLI's last step before exiting: output queued for a slow reader (a busy CI log collector)
// is written out, and the wait ends even when no write ever reported back-pressure.
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { flushOutput } from "../../src/print/flush-output.js";

/** A stream whose reader takes `delayMs` per chunk, recording what it received. */
function slowStream(delayMs: number): Writable & { received: string } {
  const s = new Writable({
    write(chunk: Buffer, _enc, cb) {
      setTimeout(() => {
        s.received += chunk.toString();
        cb();
      }, delayMs);
    },
  }) as Writable & { received: string };
  s.received = "";
  return s;
}

describe("flushOutput", () => {
  it("waits for a small tail queued behind a slow reader (no write returned false, so no 'drain' comes)", async () => {
    const out = slowStream(30);
    expect(out.write("6 resource(s) applied.\n")).toBe(true);
    expect(out.write("0 resource(s) pruned.\n")).toBe(true);
    await flushOutput([out]);
    expect(out.received).toBe("6 resource(s) applied.\n0 resource(s) pruned.\n");
  });

  it("waits for a large backlog too", async () => {
    const out = slowStream(1);
    const line = "configmap/cm-00001 unchanged\n";
    for (let i = 0; i < 2000; i++) out.write(line);
    await flushOutput([out]);
    expect(out.received.length).toBe(line.length * 2000);
  });

  it("returns at once for streams with nothing queued, and for destroyed ones", async () => {
    const idle = slowStream(1);
    const gone = slowStream(1);
    gone.write("x");
    gone.destroy();
    await flushOutput([idle, gone]);
    expect(idle.received).toBe("");
  });
});
