import { handler, json } from "@/lib/http/handler";
import { authenticate } from "@/lib/auth/authenticate";
import { activity } from "@/lib/operations/activity";
import { activityQuery } from "@/lib/operations/range";
import { db } from "@/lib/server";
import { singleFlight } from "@/lib/http/single-flight";

export const dynamic = "force-dynamic";

export const GET = handler(async (req) => {
  const p = await authenticate(req);
  const { range } = activityQuery.parse(Object.fromEntries(new URL(req.url).searchParams));
  // Same range and tenant scope, same figures: concurrent viewers share one read.
  const key = `activity:${range}:${JSON.stringify(p.tenants === null ? null : [...p.tenants].sort())}`;
  return json(await singleFlight(key, () => activity(db(), { range, tenants: p.tenants })));
});

export * from "@/lib/http/method-fallback";
