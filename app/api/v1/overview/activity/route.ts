import { handler, json } from "@/lib/http/handler";
import { activity } from "@/lib/operations/activity";
import { activityQuery } from "@/lib/operations/range";
import { db } from "@/lib/server";
import { singleFlight } from "@/lib/http/single-flight";

export const dynamic = "force-dynamic";

export const GET = handler("GET /api/v1/overview/activity", async (req, params, p) => {
  const { range } = activityQuery.parse(Object.fromEntries(new URL(req.url).searchParams));
  // Same range and tenant scope, same figures: concurrent viewers share one read.
  const key = `activity:${range}:${JSON.stringify(p.tenants === null ? null : [...p.tenants].sort())}`;
  return json(await singleFlight(key, () => activity(db(), { range, tenants: p.tenants })));
});

export * from "@/lib/http/method-fallback";
