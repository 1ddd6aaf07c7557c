import { afterAll, beforeAll, describe, it } from "vitest";
import fc from "fast-check";
import { createTestDb, type TestDb } from "../helpers/db";
import { commandArbitrary, runSequence, Sut } from "./harness";

// Model-based test (see test/model/harness.ts and docs/testing.md, "Model-based test").
//   MODEL_RUNS=5000 MODEL_SEED=123 npm run test:model     a long local run, reproducibly seeded
//   MODEL_SEED=… MODEL_PATH=… MODEL_REPLAY=…              replay exactly the failing case fast-check printed:
//                                                         its seed, its path and the replayPath in the counterexample
//   MODEL_STATS=1                                         print how often each command outcome happened
//   MODEL_RACE=1                                          add concurrent races (see harness.ts; they do not replay exactly)
//   MODEL_MIGRATIONS=0                                    leave out the index-space migration commands
//   MODEL_RELAX="text,…"                                  go on past known violations whose message contains a text (bug hunting only)
const numRuns = Number(process.env.MODEL_RUNS ?? 200);
const seed = process.env.MODEL_SEED ? Number(process.env.MODEL_SEED) : (Date.now() ^ (Math.random() * 0x100000000)) | 0;
const path = process.env.MODEL_PATH || undefined;
const replayPath = process.env.MODEL_REPLAY || undefined;
const maxCommands = Number(process.env.MODEL_MAX_COMMANDS ?? 25);

let t: TestDb;
let sut: Sut;
beforeAll(async () => {
  t = await createTestDb({ poolMax: 4 });
  sut = new Sut(t.pool);
});
afterAll(async () => {
  await sut?.abandon();
  await t?.close();
});

describe("model-based: random operation sequences against the real pipeline", () => {
  it(`${numRuns} sequences keep every invariant, after each step and at rest`, { timeout: 60 * 60_000 }, async () => {
    console.log(
      `[model] seed=${seed} runs=${numRuns} maxCommands=${maxCommands}${path ? ` path=${path}` : ""} (replay: MODEL_SEED=${seed})`,
    );
    const t0 = Date.now();
    try {
      await fc.assert(
        fc.asyncProperty(fc.commands([commandArbitrary], { maxCommands, size: "max", replayPath }), (cmds) =>
          runSequence(sut, cmds),
        ),
        { numRuns, seed, path, verbose: 1, endOnFailure: false },
      );
    } catch (e) {
      const text = String((e as Error).message);
      const failedPath = /path: "([^"]+)"/.exec(text)?.[1];
      const failedReplay = /replayPath="([^"]+)"/.exec(text)?.[1];
      if (failedPath)
        (e as Error).message =
          `replay: MODEL_SEED=${seed} MODEL_PATH=${failedPath}${failedReplay ? ` MODEL_REPLAY='${failedReplay}'` : ""} npx vitest run test/model\n${text}`;
      throw e;
    }
    console.log(`[model] ${numRuns} sequences passed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    if (process.env.MODEL_STATS) {
      const lines = [...sut.stats.entries()]
        .sort((a, b) => a[0].localeCompare(b[0]))
        .map(([k, n]) => `  ${String(n).padStart(7)}  ${k}`);
      console.log(`[model] what happened:\n${lines.join("\n")}`);
      console.log(
        `[model] time spent: ${[...sut.timings.entries()].map(([k, ms]) => `${k} ${(ms / 1000).toFixed(1)} s`).join(", ")}`,
      );
    }
  });
});
