// Wires the schema registry's domain from its dependencies: the Prisma store, and the tenant
// rule whose operator-access records reach the touched tenant's ledger through the outbox.
import type { PrismaClient } from '../../generated/prisma/client';
import { operatorAccessData, OPERATOR_ACCESS_EVENT, TenantAccess } from '../../platform/auth/tenant-access';
import { auditEvent, outboxWriter } from '../../platform/outbox/outbox.writer';
import { SchemaRegistryService } from './schema-registry.service';
import { prismaSchemaStore } from './schema-registry.store';

/** `requireAuth`: the port's mode (serviceRequiresAuth); false lets callers without a token read as X-Tenant-ID's tenant. */
export function createSchemaRegistryService(prisma: PrismaClient, requireAuth = true): SchemaRegistryService {
  const outbox = outboxWriter(prisma, 'schema-registry');
  const access = new TenantAccess((a) =>
    outbox.append(
      auditEvent(a, {
        tenantId: a.tenantId,
        type: OPERATOR_ACCESS_EVENT,
        actor: a.operator,
        data: operatorAccessData(a),
      }),
    ),
  );
  return new SchemaRegistryService(prismaSchemaStore(prisma), access, requireAuth);
}
