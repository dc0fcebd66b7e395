// The Node 20 launcher's code cache file: V8's data behind a header with the count of runs that
// wrote it. Anything else read from the file (garbage, another format, a count out of range) is no
// cache at all, so the script is compiled as usual and the file written anew.
import { describe, expect, it } from "vitest";
import { CODE_CACHE_RUNS, codeCacheEntry, readCodeCache } from "../../src/util/code-cache-file.js";

describe("the launcher's code cache file", () => {
  const data = Buffer.from([1, 2, 3, 250, 0, 9]);

  it("gives back V8's data and the count of runs it was written with", () => {
    for (let runs = 1; runs <= CODE_CACHE_RUNS; runs++) expect(readCodeCache(codeCacheEntry(data, runs))).toEqual({ runs, data });
  });

  it.each([
    ["nothing", undefined],
    ["an empty file", Buffer.alloc(0)],
    ["garbage", Buffer.from("not a code cache")],
    ["V8's data without the header (the format before)", data],
    ["the header alone", codeCacheEntry(data, 1).subarray(0, 21)],
    ["another header", Buffer.concat([Buffer.from("kpt-ts code cache 9\n"), Buffer.from([1]), data])],
    ["a count of 0", Buffer.concat([codeCacheEntry(data, 1).subarray(0, 20), Buffer.from([0]), data])],
    ["a count above the runs that write", Buffer.concat([codeCacheEntry(data, 1).subarray(0, 20), Buffer.from([CODE_CACHE_RUNS + 1]), data])],
  ])("reads %s as no cache", (_what, bytes) => {
    expect(readCodeCache(bytes)).toBeUndefined();
  });
});
