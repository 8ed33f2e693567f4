// The Prisma surface identity's stores accept: the client itself or an interactive transaction,
// so the same store code runs inside and outside `IdentityUnitOfWork.transaction`.
import type { Prisma, PrismaClient } from '../../generated/prisma/client';

export type PrismaLike = PrismaClient | Prisma.TransactionClient;

/** Prisma's unique-constraint violation (P2002). */
export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === 'P2002';
}
