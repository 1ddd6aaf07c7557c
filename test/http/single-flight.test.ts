import { describe, expect, it } from "vitest";
import { singleFlight } from "../../lib/http/single-flight";

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
