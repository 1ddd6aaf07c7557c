// Entry of a parse process. It starts without the parent's TypeScript loader (tests run under
// vitest, the worker under `node --import tsx`), so it loads child.ts through tsx's API.
import { tsImport } from "tsx/esm/api";

await tsImport("./child.ts", import.meta.url);
