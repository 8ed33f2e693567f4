// The scanner subgraph's resolvers: thin adapters over the domain (the same calls as REST).
// Enum values are the domain's lower-case words inside, GraphQL's upper case outside.
import { JSONScalar } from '../../platform/graphql/json-scalar';
import { opt, orNull } from '../../platform/graphql/resolver-args';
import type { ComplianceScannerGraphQLContext } from './graphql.context';
import type { Resolvers } from './resolvers.generated';

const iso = (d: Date | null) => (d ? d.toISOString() : null);
type Ctx = ComplianceScannerGraphQLContext;

export const resolvers = {
  JSON: JSONScalar,
  ScannerFindingStatus: { OPEN: 'open', FIXED: 'fixed', SUPPRESSED: 'suppressed', REOPENED: 'reopened' },
  ScannerSuppressionStatus: { PENDING: 'pending', APPROVED: 'approved', REJECTED: 'rejected', EXPIRED: 'expired' },
  ScannerSuppressionScope: { FINGERPRINT: 'fingerprint', RULE_PATH: 'rule_path', PURL: 'purl' },
  ScannerPack: {
    pack: (p) => p.pack as unknown as Record<string, unknown>,
  },
  ScannerTarget: {
    createdAt: (t) => t.createdAt.toISOString(),
  },
  ScannerScan: {
    startedAt: (s) => s.startedAt.toISOString(),
    finishedAt: (s) => iso(s.finishedAt),
    summary: (s) => s.summary as unknown as Record<string, unknown> | null,
    sarif: (s, _, ctx: Ctx) => ctx.scanner.scans.sarif(ctx.caller, { scanId: s.id, tenantId: s.tenantId }),
  },
  ScannerFinding: {
    firstSeen: (f) => f.firstSeen.toISOString(),
    lastSeen: (f) => f.lastSeen.toISOString(),
  },
  ScannerSuppression: {
    expiresAt: (s) => s.expiresAt.toISOString(),
    createdAt: (s) => s.createdAt.toISOString(),
  },
  Query: {
    scannerPacks: (_, __, ctx) => ctx.scanner.packs.list(ctx.caller),
    scannerTargets: (_, __, ctx) => ctx.scanner.targets.list(ctx.caller),
    scannerScans: (_, a, ctx) => ctx.scanner.scans.list(ctx.caller, { targetId: opt(a.targetId), limit: opt(a.limit) }),
    scannerScan: (_, a, ctx) => orNull(ctx.scanner.scans.get(ctx.caller, { id: a.id })),
    scannerFindings: (_, a, ctx) =>
      ctx.scanner.scans.findings(ctx.caller, {
        targetId: opt(a.targetId),
        scanId: opt(a.scanId),
        status: opt(a.status),
        limit: opt(a.limit),
      }),
    scannerSuppressions: (_, a, ctx) =>
      ctx.scanner.suppressions.list(ctx.caller, { status: opt(a.status), limit: opt(a.limit) }),
  },
  Mutation: {
    runScan: (_, { input }, ctx) =>
      ctx.scanner.scans.run(ctx.caller, {
        targetId: input.targetId,
        packId: input.packId,
        packVersion: opt(input.packVersion),
      }),
    requestScannerSuppression: (_, { input }, ctx) =>
      ctx.scanner.suppressions.request(
        ctx.caller,
        {
          scope: input.scope,
          fingerprint: input.fingerprint,
          ruleId: input.ruleId,
          pathGlob: input.pathGlob,
          purl: input.purl,
          owner: input.owner,
          justification: input.justification,
          expiresAt: input.expiresAt,
        },
        ctx.forward,
      ),
    refreshScannerSuppression: (_, a, ctx) => ctx.scanner.suppressions.refresh(ctx.caller, { id: a.id }),
  },
} satisfies Resolvers;
