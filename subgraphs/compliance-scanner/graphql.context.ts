// Per-request GraphQL context: the caller (built by the kernel), the bearer token a suppression
// request forwards to the workflow service, and the scanner's domain. The subgraph declares no
// entities, so no reference loaders. Over graphql-ws the context also subscribes to a scan's progress.
import type { FastifyRequest } from 'fastify';
import type { Caller } from '../../platform/auth/caller';
import { bearerToken } from '../../platform/auth/jwt';
import type { ScannerModule } from './compliance-scanner.module';
import type { Scan } from './scanner.types';
import type { Forward } from './suppression.service';

export interface ComplianceScannerGraphQLContext {
  caller: Caller;
  forward: Forward;
  scanner: ScannerModule;
  /** Over graphql-ws only (compliance-scanner.subscriptions.ts): a scan's progress, tenant-checked. */
  subscribeScanProgress?: (scanId: string) => Promise<AsyncIterableIterator<Scan>>;
}

export function complianceScannerContext(
  caller: Caller,
  request: Pick<FastifyRequest, 'headers'>,
  scanner: ScannerModule,
): ComplianceScannerGraphQLContext {
  return { caller, forward: { token: bearerToken(request.headers.authorization) }, scanner };
}
