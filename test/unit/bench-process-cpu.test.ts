// The fleet benchmark says where the machine's CPU went from Linux's /proc counters: these read
// them right, whatever a process calls itself.

import { describe, expect, it } from "vitest";
import { parseMachineBusy, parseProcStat } from "../../bench/process-cpu.js";

describe("parseProcStat", () => {
  it.each([
    ["a plain name", "30334 (kube-apiserver) S 1 30334 30334 0 -1 4194560 512345 0 12 0 1234 567 0 0 20 0 12 0 123456 1000000 20000 18446744073709551615", 18.01],
    ["a name with spaces and ')'", "42 (my (odd) name) R 1 42 42 0 -1 0 0 0 0 0 250 50 7 9 20 0 1 0 1 1 1", 3],
    ["no CPU yet", "7 (etcd) S 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 1 1", 0],
  ])("%s", (_name, line, seconds) => {
    expect(parseProcStat(line)).toBeCloseTo(seconds, 6);
  });

  it("refuses text that is not a stat line", () => {
    expect(() => parseProcStat("hello")).toThrow(/not a \/proc\/PID\/stat line/);
  });
});

describe("parseMachineBusy", () => {
  it("counts user, nice, system, irq, softirq and steal, not idle or iowait", () => {
    const text = "cpu  1000 20 300 99999 500 10 5 1 0 0\ncpu0 500 10 150 50000 250 5 2 0 0 0\nintr 1\n";
    expect(parseMachineBusy(text)).toBeCloseTo(13.36, 6);
  });

  it("refuses text without the cpu line", () => {
    expect(() => parseMachineBusy("intr 1\n")).toThrow(/no cpu line/);
  });
});
