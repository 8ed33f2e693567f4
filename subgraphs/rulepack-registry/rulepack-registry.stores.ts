// Builds the registry's stores over Prisma, and the unit of work that runs them in one interactive
// transaction (so a version, its decision record, its audit event and its notice commit together).
import type { PrismaClient } from '../../generated/prisma/client';
import type { PrismaLike } from '../../platform/db/prisma-like';
import { noticeWriter } from '../../platform/outbox/notice.writer';
import { outboxWriter } from '../../platform/outbox/outbox.writer';
import { prismaRulePackStore } from './rulepack-registry.store';
import type { RulePackStores, RulePackUnitOfWork } from './rulepack-registry.types';

export const SERVICE_NAME = 'rulepack-registry';

function storesFor(db: PrismaLike): RulePackStores {
  return {
    packs: prismaRulePackStore(db),
    outbox: outboxWriter(db, SERVICE_NAME),
    notices: noticeWriter(db, SERVICE_NAME),
  };
}

export function prismaUnitOfWork(prisma: PrismaClient): RulePackUnitOfWork {
  return {
    ...storesFor(prisma),
    transaction: (work) => prisma.$transaction((tx) => work(storesFor(tx)), { timeout: 15_000, maxWait: 10_000 }),
  };
}
