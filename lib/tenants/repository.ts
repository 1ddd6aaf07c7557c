import "server-only";
import { prisma } from "../db/repository";

/** The caller's tenants, each with the index space its search reads (docs/index-spaces.md). */
export async function listTenants(
  only: string[] | null,
): Promise<{ id: string; name: string; space: { id: number; name: string } }[]> {
  const db = prisma();
  const [tenants, spaces] = await Promise.all([
    db.tenant.findMany({
      where: only ? { id: { in: only } } : undefined,
      select: { id: true, name: true, activeSpaceId: true },
      orderBy: { id: "asc" },
      take: 1000,
    }),
    db.embeddingSpace.findMany({ select: { id: true, name: true } }),
  ]);
  const nameOf = new Map(spaces.map((s) => [s.id, s.name]));
  return tenants.map((t) => ({
    id: t.id,
    name: t.name,
    space: { id: t.activeSpaceId, name: nameOf.get(t.activeSpaceId) ?? String(t.activeSpaceId) },
  }));
}
