import { z } from "zod";

// Zod 4 compiles object parsers with `new Function` unless told not to, and first probes for it by
// calling `new Function("")`: under our Content-Security-Policy (no 'unsafe-eval', next.config.mjs)
// every page then reported a script-src violation. Imported first by app/providers.tsx, so it is set
// before any schema parses in the browser; the interpreted parsers are plenty for form-sized input.
z.config({ jitless: true });
