import { handler, json } from "@/lib/http/handler";
import { authenticate } from "@/lib/auth/authenticate";
import { activity } from "@/lib/operations/activity";
import { activityQuery } from "@/lib/operations/range";
import { db } from "@/lib/server";

export const dynamic = "force-dynamic";

export const GET = handler(async (req) => {
  const p = await authenticate(req);
  const { range } = activityQuery.parse(Object.fromEntries(new URL(req.url).searchParams));
  return json(await activity(db(), { range, tenants: p.tenants }));
});

export * from "@/lib/http/method-fallback";
