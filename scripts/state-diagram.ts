// Writes docs/state-machine.md from the TRANSITIONS table (npm run docs:states); a test fails when
// the checked-in file is not what this prints, so the diagram cannot drift from the code.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { TRANSITIONS } from "../lib/queue/transitions";

export const STATE_MACHINE_DOC = path.resolve(import.meta.dirname, "../docs/state-machine.md");

export function stateMachineDoc(): string {
  // One arrow per pair of states, labelled with every actor and event that makes that move.
  const edges = new Map<string, string[]>();
  for (const t of TRANSITIONS) {
    const edge = `${t.from ?? "[*]"} --> ${t.to}`;
    edges.set(edge, [...(edges.get(edge) ?? []), `${t.events.join(" + ")} (${t.actor})`]);
  }
  const rows = TRANSITIONS.map((t) => `| ${t.from ?? "(new)"} | ${t.to} | ${t.actor} | ${t.events.join(", ")} |`);
  return [
    "# Task state machine",
    "",
    "<!-- Generated from lib/queue/transitions.ts by `npm run docs:states`; do not edit by hand. -->",
    "",
    "Every move of `index_tasks.status` and the `task_events` written with it. The statements are in",
    "`lib/queue/sql.ts` (the worker) and `lib/queue/actions-sql.ts` (publish, delete, reindex, the operator",
    "actions, the reconciler); `test/queue/transitions.test.ts` runs each from every status against",
    "PostgreSQL and checks that it moves only along these rows, and that every row is made by some statement.",
    "",
    "```mermaid",
    "stateDiagram-v2",
    ...[...edges].map(([edge, labels]) => `    ${edge}: ${labels.join(", ")}`),
    "```",
    "",
    "| from | to | actor | events |",
    "| --- | --- | --- | --- |",
    ...rows,
    "",
  ].join("\n");
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(STATE_MACHINE_DOC, stateMachineDoc());
  console.log(`wrote ${path.relative(process.cwd(), STATE_MACHINE_DOC)}`);
}
