import { z } from "zod";
import { handler, json } from "@/lib/http/handler";
import { authenticate } from "@/lib/auth/authenticate";
import { listAudit } from "@/lib/audit/repository";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

const query = z.object({ cursor: z.string().regex(/^\d{1,19}$/).optional(), limit: z.coerce.number().int().min(1).max(200).default(50) });

export const GET = handler(async (req) => {
  const p = await authenticate(req, { role: "operator" });
  const q = query.parse(Object.fromEntries(new URL(req.url).searchParams));
  return json(await listAudit(db(), { ...q, tenants: p.tenants }));
});

export * from "@/lib/http/method-fallback";
