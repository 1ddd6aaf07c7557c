// An OpenAI-compatible embeddings server for bench/migration.ts, in a process of its own so its
// work (JSON, the deterministic vectors) does not share an event loop with the bench's publisher
// and reader: the fake provider of the unit tests (test/helpers/fake-provider.ts, real HTTP on
// 127.0.0.1, vectors = the local embedder's at the requested dimensions), requests not recorded.
// Needs FAKE_OPENAI_KEY (requests must carry it). Prints "ready <base url>"; answers {type:"stats"}
// over IPC with its counters; SIGTERM stops it.
import { startFakeProvider } from "../test/helpers/fake-provider";

const apiKey = process.env.FAKE_OPENAI_KEY;
if (!apiKey || !process.send) throw new Error("bench/fake-openai-host.ts is started by bench/migration.ts");
const fake = await startFakeProvider({ apiKey, record: false });
process.on("message", (m: { type?: string }) => {
  if (m?.type === "stats")
    process.send!({
      type: "stats",
      requests: fake.requests,
      textsEmbedded: fake.textsEmbedded,
      outcomes: fake.outcomes,
    });
});
process.stdout.write(`ready ${fake.url}\n`);
const stop = async () => {
  await fake.close();
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
