import { describe, expect, it } from "vitest";
import { sharedRead, singleFlight } from "../../lib/http/single-flight";
import { formatLsn, parseLsn } from "../../lib/db/replica";

function gate<T>() {
  let open!: (v: T) => void;
  let fail!: (e: Error) => void;
  const p = new Promise<T>((res, rej) => {
    open = res;
    fail = rej;
  });
  return { p, open, fail };
}

describe("singleFlight", () => {
  it("callers that arrive while a read runs share it; one that arrives after it settled starts a new one", async () => {
    let reads = 0;
    const g = gate<number>();
    const read = () => {
      reads++;
      return g.p;
    };
    const a = singleFlight("k", read);
    const b = singleFlight("k", read);
    const other = singleFlight("other", async () => 7);
    g.open(42);
    expect(await Promise.all([a, b, other])).toEqual([42, 42, 7]);
    expect(reads).toBe(1);
    expect(await singleFlight("k", async () => 43)).toBe(43);
  });

  it("a failed read fails every caller sharing it and is not kept", async () => {
    const g = gate<number>();
    const a = singleFlight("f", () => g.p);
    const b = singleFlight("f", () => Promise.resolve(1));
    g.fail(new Error("database went away"));
    await expect(a).rejects.toThrow("database went away");
    await expect(b).rejects.toThrow("database went away");
    expect(await singleFlight("f", async () => 2)).toBe(2);
  });
});

describe("sharedRead", () => {
  it("keeps an answer for the interval, then reads again; a failure is not kept", async () => {
    let reads = 0;
    const read = async () => ++reads;
    expect(await sharedRead("s", 200, read)).toBe(1);
    expect(await sharedRead("s", 200, read)).toBe(1);
    await new Promise((r) => setTimeout(r, 220));
    expect(await sharedRead("s", 200, read)).toBe(2);
    await expect(sharedRead("e", 10_000, async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await sharedRead("e", 10_000, async () => 5)).toBe(5);
    expect(await sharedRead("z", 0, read)).toBe(3);
    expect(await sharedRead("z", 0, read)).toBe(4);
  });

  it("a caller who wrote after the kept answer was read gets a fresh one", async () => {
    let reads = 0;
    const read = async () => ++reads;
    expect(await sharedRead("w", 10_000, read)).toBe(1);
    await new Promise((r) => setTimeout(r, 5));
    const wroteAt = Date.now();
    expect(await sharedRead("w", 10_000, read, wroteAt)).toBe(2);
    expect(await sharedRead("w", 10_000, read, wroteAt - 60_000)).toBe(1);
  });
});

describe("WAL positions", () => {
  it("parse and order as pg_lsn does, and refuse what is not one", () => {
    expect(parseLsn("0/16B3748")).toBe(0x16b3748n);
    expect(parseLsn("16/B374D848")! > parseLsn("F/FFFFFFFF")!).toBe(true);
    expect(formatLsn(parseLsn("16/B374D848")!)).toBe("16/B374D848");
    for (const bad of ["", "16", "x/1", "1/2/3", "123456789/0", null]) expect(parseLsn(bad)).toBeNull();
  });
});
