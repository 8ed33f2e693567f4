// The scan-progress subscription (scannerScanProgress), fed the platform's way ("pull on notify",
// platform/events/pull-on-notify.ts), as dataflowRunProgress is: each committed step of a scan
// (recorded as running, target read, finished) publishes `scanner.scan_changed` on the bus, which
// only wakes the feed; the feed then reads the scan itself. A scan's position is its step, so each
// read yields the scan only when it moved on, a lost or late notice is caught up by the next, and
// the subscription ends with the final state (completed or failed).
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import { SCANNER_SCAN_CHANGED } from '../../platform/contracts/pipeline.events';
import type { EventBus } from '../../platform/events/event-bus';
import { pullOnNotify, type Feed } from '../../platform/events/pull-on-notify';
import { serveSubscriptions } from '../../platform/graphql/subscription-server';
import type { TokenAuthenticator } from '../../platform/http/auth-hooks';
import type { ScannerModule } from './compliance-scanner.module';
import { complianceScannerContext, type ComplianceScannerGraphQLContext } from './graphql.context';
import type { SqlQuery } from '../../platform/db/sql';
import { scanStore } from './scan.store';
import type { Scan } from './scanner.types';

/** 0: recorded, reading its target; 1: target read, its inputs under evaluation; 2: finished. */
export function scanPosition(scan: Scan): number {
  if (scan.status !== 'running') return 2;
  return scan.filesScanned > 0 ? 1 : 0;
}

export function scanProgressFeed(
  sql: SqlQuery,
  tenantId: string,
  scanId: string,
): Feed<Scan, typeof SCANNER_SCAN_CHANGED> {
  return {
    contract: SCANNER_SCAN_CHANGED,
    pageSize: 1,
    wakes: (n) => n.tenant_id === tenantId && n.scan_id === scanId,
    read: async (after) => {
      const scan = await scanStore.get(sql, tenantId, scanId);
      return scan && scanPosition(scan) > after ? [scan] : [];
    },
    positionOf: scanPosition,
    last: (scan) => scan.status !== 'running',
  };
}

export interface ScannerSubscriptionOptions {
  app: FastifyInstance;
  schema: GraphQLSchema;
  bus: EventBus;
  scanner: ScannerModule;
  sql: SqlQuery;
  tokens: TokenAuthenticator;
  requireAuth: boolean;
}

/** graphql-ws on the service's own /graphql path (the router forwards subscriptions here). */
export function serveScannerSubscriptions(options: ScannerSubscriptionOptions): void {
  const { bus, scanner, sql } = options;
  serveSubscriptions<ComplianceScannerGraphQLContext>({
    ...options,
    context: (caller, params) => {
      const authorization = typeof params.authorization === 'string' ? params.authorization : undefined;
      return {
        ...complianceScannerContext(caller, { headers: { authorization } }, scanner),
        // The current state first (a finished scan: only that), then each step, ending with the final state.
        subscribeScanProgress: async (scanId) => {
          // The tenant's own scan or NOT_FOUND (another tenant's is never read).
          const scan = await scanner.scans.get(caller, { id: scanId });
          return pullOnNotify(bus, scanProgressFeed(sql, scan.tenantId, scan.id), async () => -1);
        },
      };
    },
  });
}
