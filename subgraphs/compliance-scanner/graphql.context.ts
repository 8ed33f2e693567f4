// Per-request GraphQL context: the caller (built by the kernel), the bearer token a suppression
// request forwards to the workflow service, and the scanner's domain. The subgraph declares no
// entities, so no reference loaders.
import type { FastifyRequest } from 'fastify';
import type { Caller } from '../../platform/auth/caller';
import { bearerToken } from '../../platform/auth/jwt';
import type { ScannerModule } from './compliance-scanner.module';
import type { Forward } from './suppression.service';

export interface ComplianceScannerGraphQLContext {
  caller: Caller;
  forward: Forward;
  scanner: ScannerModule;
}

export function complianceScannerContext(
  caller: Caller,
  request: FastifyRequest,
  scanner: ScannerModule,
): ComplianceScannerGraphQLContext {
  return { caller, forward: { token: bearerToken(request.headers.authorization) }, scanner };
}
