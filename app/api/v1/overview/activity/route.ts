import { handler, json } from "@/lib/http/handler";
import { activity } from "@/lib/operations/activity";
import { activityQuery } from "@/lib/operations/range";
import { readDb, serverConfig } from "@/lib/server";
import { sharedRead } from "@/lib/http/single-flight";
import { lastWrite } from "@/lib/db/recent-writes";
import { requestReadSource } from "@/lib/http/request-context";

export const dynamic = "force-dynamic";

export const GET = handler("GET /api/v1/overview/activity", async (req, params, p) => {
  const { range } = activityQuery.parse(Object.fromEntries(new URL(req.url).searchParams));
  // Same range and tenant scope, same figures: viewers share one read for DASHBOARD_SHARED_READ_MS.
  const key = `activity:${requestReadSource()}:${range}:${JSON.stringify(p.tenants === null ? null : [...p.tenants].sort())}`;
  return json(
    await sharedRead(
      key,
      serverConfig().DASHBOARD_SHARED_READ_MS,
      () => activity(readDb(), { range, tenants: p.tenants }),
      lastWrite(p.subject)?.at ?? null,
    ),
  );
});

export * from "@/lib/http/method-fallback";
