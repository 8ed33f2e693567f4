// The Prisma surface a store accepts: the client itself or an interactive transaction, so the
// same store code runs inside and outside a unit of work's transaction.
import type { Prisma, PrismaClient } from '../../generated/prisma/client';

export type PrismaLike = PrismaClient | Prisma.TransactionClient;

/** Prisma's unique-constraint violation (P2002). */
export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === 'P2002';
}
