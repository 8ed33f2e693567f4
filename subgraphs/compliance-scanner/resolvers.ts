// The scanner subgraph's resolvers: thin adapters over the domain (the same calls as REST).
// Enum values are the domain's lower-case words inside, GraphQL's upper case outside.
import { JSONScalar } from '../../platform/graphql/json-scalar';
import { opt, orNull } from '../../platform/graphql/resolver-args';
import { InputError } from '../../platform/errors/domain-errors';
import type { ComplianceScannerGraphQLContext } from './graphql.context';
import { scanPosition } from './compliance-scanner.subscriptions';
import type { Scan, TargetKind } from './scanner.types';
import type { Resolvers } from './resolvers.generated';

const iso = (d: Date | null) => (d ? d.toISOString() : null);
type Ctx = ComplianceScannerGraphQLContext;
const TARGET_KINDS = ['repository', 'configuration', 'config', 'data_asset'] as const satisfies readonly TargetKind[];

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
    sbom: (s, _, ctx: Ctx) => orNull(ctx.scanner.scans.sbom(ctx.caller, { scanId: s.id, tenantId: s.tenantId })),
  },
  ScannerSchedule: {
    dueAt: (s) => iso(s.dueAt),
    lastRunAt: (s) => iso(s.lastRunAt),
    createdAt: (s) => s.createdAt.toISOString(),
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
    scannerSchedules: (_, __, ctx) => ctx.scanner.schedules.list(ctx.caller),
  },
  Subscription: {
    scannerScanProgress: {
      subscribe: (_, args, ctx) => {
        if (!ctx.subscribeScanProgress)
          throw InputError.of(['subscription'], 'Subscriptions are served over graphql-ws on /graphql');
        return ctx.subscribeScanProgress(args.scanId);
      },
      resolve: (scan: Scan) => ({
        scanId: scan.id,
        status: scan.status,
        position: scanPosition(scan),
        filesScanned: scan.filesScanned,
        scan,
      }),
    },
  },
  Mutation: {
    submitScannerPack: async (_, { input }, ctx) =>
      (await ctx.scanner.packs.submit(ctx.caller, { pack: input.pack })).pack,
    certifyScannerPack: (_, a, ctx) => ctx.scanner.packs.certify(ctx.caller, { packId: a.packId, version: a.version }),
    createScannerTarget: (_, { input }, ctx) => {
      if (!(TARGET_KINDS as readonly string[]).includes(input.kind))
        throw InputError.of(['input', 'kind'], `Input should be ${TARGET_KINDS.map((k) => `'${k}'`).join(', ')}`);
      const settings = input.settings ?? null;
      if (settings !== null && (typeof settings !== 'object' || Array.isArray(settings)))
        throw InputError.of(['input', 'settings'], 'Input should be an object of NAME: value');
      return ctx.scanner.targets.create(ctx.caller, {
        name: input.name,
        kind: input.kind as TargetKind,
        path: input.path,
        settings: settings as Record<string, unknown> | null,
        namespace: input.namespace,
      });
    },
    createScannerSchedule: (_, { input }, ctx) =>
      ctx.scanner.schedules.create(ctx.caller, {
        targetId: input.targetId,
        packId: input.packId,
        everySeconds: input.everySeconds,
        onEvents: input.onEvents,
      }),
    deleteScannerSchedule: async (_, a, ctx) => {
      await ctx.scanner.schedules.remove(ctx.caller, { id: a.id });
      return true;
    },
    runScan: (_, { input }, ctx) => {
      const request = { targetId: input.targetId, packId: input.packId, packVersion: opt(input.packVersion) };
      return input.background
        ? ctx.scanner.scans.startInBackground(ctx.caller, request)
        : ctx.scanner.scans.run(ctx.caller, request);
    },
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
