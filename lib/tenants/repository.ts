import "server-only";
import { prisma } from "../db/repository";

export async function listTenants(only: string[] | null): Promise<{ id: string; name: string }[]> {
  return prisma().tenant.findMany({
    where: only ? { id: { in: only } } : undefined,
    select: { id: true, name: true },
    orderBy: { id: "asc" },
    take: 1000,
  });
}
