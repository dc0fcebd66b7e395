// The engine's event queue: every event comes out once, in order, however many are queued
// before the reader catches up (a 10,000-object run queues tens of thousands at once), and a
// failure is thrown after the events pushed before it.
import { describe, expect, it } from "vitest";
import { EventChannel } from "../../src/util/event-channel.js";

async function drain<T>(c: AsyncIterable<T>): Promise<{ items: T[]; error?: unknown }> {
  const items: T[] = [];
  try {
    for await (const x of c) items.push(x);
  } catch (error) {
    return { items, error };
  }
  return { items };
}

describe("EventChannel", () => {
  it("hands out 50,000 queued events once each, in order", async () => {
    const c = new EventChannel<number>();
    const n = 50_000;
    for (let i = 0; i < n; i++) c.push(i);
    c.close();
    const { items } = await drain(c);
    expect(items).toHaveLength(n);
    expect(items.every((x, i) => x === i)).toBe(true);
  });

  it("keeps the order when pushes and pulls interleave across its compactions", async () => {
    const c = new EventChannel<number>();
    const reading = drain(c);
    let next = 0;
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 1_000; i++) c.push(next++);
      await new Promise((r) => setTimeout(r, 0));
    }
    c.close();
    const { items } = await reading;
    expect(items).toEqual([...Array(next).keys()]);
  });

  it("throws a failure after the events pushed before it, and ignores pushes after it", async () => {
    const c = new EventChannel<string>();
    c.push("a");
    c.push("b");
    c.fail(new Error("boom"));
    c.push("late");
    const { items, error } = await drain(c);
    expect(items).toEqual(["a", "b"]);
    expect((error as Error).message).toBe("boom");
  });
});
