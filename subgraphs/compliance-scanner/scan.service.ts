// Scans, on demand or for a schedule or an event (scan-scheduler.ts): a certified,
// signature-checked pack over one of the tenant's targets. The target is read (a repository
// inside the allowed roots or shallow-cloned from an allowed remote, within the size limits, with its package-lock.json as a CycloneDX
// SBOM; settings; the tenant's configuration through the typed config client; or a data asset,
// an ingestion batch or retrieval documents through their typed clients, sampled for unmasked PII
// and, for retention rules, checked against the tenant's retention policies at compliance),
// the engine runs, and in one transaction the findings move (finding-lifecycle.ts), their
// `scanner.finding` notices are written and the scan's audit event is recorded. A scan that
// cannot read its target ends `failed` with the reason, and the error is the caller's answer.
import { randomUUID } from 'node:crypto';
import type { Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import type { SqlExecutor } from '../../platform/db/sql';
import type { ComplianceClient, ComplianceRetentionRuleJson } from '../../platform/clients/compliance.client';
import type { ConfigClient } from '../../platform/clients/config.client';
import type { IngestionClient } from '../../platform/clients/ingestion.client';
import type { RetrievalClient } from '../../platform/clients/retrieval.client';
import { ServiceCallError } from '../../platform/clients/service-request';
import { DomainError, InputError, NotFoundError, UnavailableError } from '../../platform/errors/domain-errors';
import { auditEvent, sqlOutboxWriter } from '../../platform/outbox/outbox.writer';
import type { ScannerConfig } from './compliance-scanner.config';
import { reconcile } from './finding-lifecycle';
import { findingNotice, writeFindingNotices } from './finding-notices';
import { findingStore } from './finding.store';
import { SERVICE, type PackService } from './pack.service';
import { cloneRemote } from './remote-clone';
import { checkRemote, isRemotePath } from './remote-url';
import { allowedRoot, readLockfile, readRepository, type RepositoryRead } from './repository-reader';
import { cycloneDxFromLockfile, LockfileError } from './sbom';
import { buildSarif, sarifProblem } from './sarif';
import { runPack, type ScanInput } from './scan-engine';
import { scanStore } from './scan.store';
import { SCANNER_SCAN_COMPLETED_EVENT } from './compliance-scanner.audit';
import { assertMayRead, assertMayWrite } from './scanner.policy';
import { scannerPackStore } from './pack.store';
import { effectiveSettings } from './settings-input';
import { suppressionStore } from './suppression.store';
import { samplePii, type SampledRecord } from './data-asset-pii';
import { overdueAssets, type AssetAge } from './data-asset-retention';
import { dataAssetOf, ingestionRecords, retrievalRecords } from './data-asset-source';
import { targetStore } from './target.store';
import type { Finding, FindingStatus, Scan, ScanStatus, ScanSummary, ScanTarget, ScanTrigger } from './scanner.types';

export const MAX_LIST_LIMIT = 1000;

export interface ScanRequest {
  targetId: string;
  packId: string;
  packVersion?: string;
  tenantId?: string;
  /** Set by the scheduler: what started the scan, and which schedule. */
  trigger?: ScanTrigger;
  scheduleId?: string;
}

/** How many inputs a read target gives the engine: files, namespaces, or the one settings set. */
function inputCount(input: ScanInput): number {
  if (input.kind === 'repository') return input.files.length;
  if (input.kind === 'config') return Object.keys(input.config).length;
  if (input.kind === 'data_asset') return input.sightings.length;
  return 1;
}

export class ScanService {
  constructor(
    private readonly sql: SqlExecutor,
    private readonly access: TenantAccess,
    private readonly packs: PackService,
    private readonly config: Pick<
      ScannerConfig,
      'allowedRoots' | 'maxFileBytes' | 'maxFiles' | 'environment' | 'requireAuth'
    > &
      Partial<
        Pick<
          ScannerConfig,
          | 'maxLockfileBytes'
          | 'maxDataAssetRecords'
          | 'allowedRemotes'
          | 'remoteAllowLoopback'
          | 'maxCloneBytes'
          | 'cloneTimeoutSeconds'
        >
      >,
    private readonly onCommitted: () => void,
    private readonly now: () => Date = () => new Date(),
    /** Reads config targets (the config service, with the scanner's own identity); absent, they fail. */
    private readonly configService?: Pick<ConfigClient, 'effective'>,
    private readonly version = '0.1.0',
    /** Called after a scan's start, read or end commits: the progress subscriptions' wake-up. */
    private readonly onScanChanged: (tenantId: string, scanId: string, status: ScanStatus) => void = () => undefined,
    /** Reads data assets (ingestion batches, with the scanner's own identity); absent, they fail. */
    private readonly ingestion?: Pick<IngestionClient, 'allRecords'>,
    /** Reads data assets (retrieval documents, with the scanner's own identity); absent, they fail. */
    private readonly retrieval?: Pick<RetrievalClient, 'document' | 'allDocuments' | 'allChunks'>,
    /** Reads the tenant's retention policies (retention rules, with the scanner's own identity); absent, they fail. */
    private readonly compliance?: Pick<ComplianceClient, 'retentionPolicies'>,
  ) {}

  private readonly background = new Set<Promise<unknown>>();

  /** Runs a scan and answers the finished scan (the target's read failure is the caller's error). */
  async run(caller: Caller, input: ScanRequest): Promise<Scan> {
    return (await this.start(caller, input)).done;
  }

  /**
   * Checks the request and records the scan as running, then answers it at once; `done` settles
   * with the finished scan (or the read failure, the scan then recorded as failed). Each
   * committed step is announced through `onScanChanged`, the progress subscription's wake-up.
   */
  async start(caller: Caller, input: ScanRequest): Promise<{ scan: Scan; done: Promise<Scan> }> {
    const auth = assertMayWrite(caller);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'scanner.scan.run');
    const target = await targetStore.get(this.sql, tenantId, input.targetId);
    if (!target) throw new NotFoundError(`Target ${input.targetId} not found`);
    const { pack, compiled } = await this.packs.forScan(tenantId, input.packId, input.packVersion);
    const scanId = randomUUID();
    await scanStore.insert(this.sql, tenantId, {
      id: scanId,
      targetId: target.id,
      packId: pack.packId,
      packVersion: pack.version,
      requestedBy: auth.username,
      trigger: input.trigger ?? 'manual',
      scheduleId: input.scheduleId ?? null,
    });
    this.onScanChanged(tenantId, scanId, 'running');
    const scan = (await scanStore.get(this.sql, tenantId, scanId))!;
    const done = this.complete(caller, auth.username, input, tenantId, target, { pack, compiled }, scanId);
    // Marked handled here: whoever awaits `done` still gets the error, and none escapes unawaited.
    done.catch(() => undefined);
    return { scan, done };
  }

  /**
   * Starts a scan and lets it finish in the background (the progress subscription follows it);
   * `drain` waits for those under way, so a stopping service never leaves one half-recorded.
   */
  async startInBackground(caller: Caller, input: ScanRequest): Promise<Scan> {
    const { scan, done } = await this.start(caller, input);
    // The failure is recorded on the scan itself (status failed, error): nobody else awaits it.
    const settled: Promise<unknown> = done.catch(() => undefined).finally(() => this.background.delete(settled));
    this.background.add(settled);
    return scan;
  }

  /** Waits for the background scans under way. */
  async drain(): Promise<void> {
    await Promise.all([...this.background]);
  }

  private async complete(
    caller: Caller,
    actor: string,
    input: ScanRequest,
    tenantId: string,
    target: ScanTarget,
    { pack, compiled }: Awaited<ReturnType<PackService['forScan']>>,
    scanId: string,
  ): Promise<Scan> {
    let scanInput: ScanInput;
    let skipped: ScanSummary['skipped_files'] = [];
    let sbom: Record<string, unknown> | null = null;
    try {
      if (target.kind === 'config') {
        scanInput = { kind: 'config', config: await this.readConfig(tenantId, target, caller.correlationId) };
      } else if (target.kind === 'repository') {
        const globs = [...new Set(compiled.rules.flatMap((r) => r.globs))];
        const read = await this.readRepositoryTarget(target.path!, globs);
        scanInput = { kind: 'repository', files: read.files };
        skipped = read.skipped;
        sbom = read.sbom;
      } else if (target.kind === 'data_asset') {
        const retention = compiled.rules.some((r) => r.rule.input === 'retention');
        scanInput = await this.readDataAsset(tenantId, target, caller.correlationId, retention);
      } else {
        scanInput = { kind: 'configuration', settings: target.settings ?? effectiveSettings(this.config.environment) };
      }
    } catch (err) {
      const message = err instanceof DomainError ? err.message : 'the target could not be read';
      await scanStore.finish(this.sql, tenantId, scanId, {
        status: 'failed',
        filesScanned: 0,
        summary: null,
        error: message,
      });
      this.onScanChanged(tenantId, scanId, 'failed');
      throw err;
    }
    try {
      await scanStore.markRead(this.sql, tenantId, scanId, inputCount(scanInput));
      this.onScanChanged(tenantId, scanId, 'running');
      const result = runPack(compiled, target.id, scanInput);
      const at = this.now();
      await this.sql.transaction(async (tx) => {
        const existing = await findingStore.ofTarget(tx, tenantId, target.id, pack.packId);
        const suppressions = await suppressionStore.inForce(tx, tenantId, at);
        const moved = reconcile({
          tenantId,
          targetId: target.id,
          scanId,
          pack: { packId: pack.packId, version: pack.version, rules: pack.pack.rules },
          existing,
          matches: result.matches,
          suppressions,
          now: at,
        });
        await findingStore.insert(tx, tenantId, moved.inserted);
        await findingStore.update(tx, tenantId, moved.updated);
        await writeFindingNotices(
          tx,
          SERVICE,
          moved.transitions.map((t) => findingNotice(t.finding, scanId, target.kind, at)),
          caller.correlationId,
        );
        const summary: ScanSummary = {
          matches: result.matches.length,
          ...moved.counts,
          rule_errors: result.errors
            .slice(0, 1000)
            .map((e) => ({ rule_id: e.ruleId, path: e.path, message: e.message })),
          skipped_files: skipped.slice(0, 1000),
          ignored_inline_skips: moved.ignoredInlineSkips.slice(0, 1000),
        };
        await scanStore.finish(tx, tenantId, scanId, {
          status: 'completed',
          filesScanned: result.filesScanned,
          summary,
          error: null,
        });
        if (sbom) await scanStore.setSbom(tx, tenantId, scanId, sbom);
        await sqlOutboxWriter(tx, SERVICE).append(
          auditEvent(caller, {
            tenantId,
            type: SCANNER_SCAN_COMPLETED_EVENT,
            actor,
            data: {
              scan_id: scanId,
              target_id: target.id,
              pack_id: pack.packId,
              pack_version: pack.version,
              pack_sha256: pack.sha256,
              trigger: input.trigger ?? 'manual',
              files_scanned: result.filesScanned,
              ...moved.counts,
              ignored_inline_skips: moved.ignoredInlineSkips.length,
            },
          }),
        );
      });
    } catch (err) {
      // Nothing of the scan's outcome was committed (one transaction): it ends failed, never running forever.
      await scanStore.finish(this.sql, tenantId, scanId, {
        status: 'failed',
        filesScanned: 0,
        summary: null,
        error: 'the scan could not be recorded',
      });
      this.onScanChanged(tenantId, scanId, 'failed');
      throw err;
    }
    this.onCommitted();
    this.onScanChanged(tenantId, scanId, 'completed');
    return (await scanStore.get(this.sql, tenantId, scanId))!;
  }

  /**
   * A repository's files and SBOM: a local root checked again (the allowed roots or the disk may
   * have changed since registration), or a remote checked again against the allowlist and cloned
   * shallow into a temporary directory that is removed once read, whatever happens.
   */
  private async readRepositoryTarget(
    where: string,
    globs: string[],
  ): Promise<RepositoryRead & { sbom: Record<string, unknown> | null }> {
    const limits = { maxFileBytes: this.config.maxFileBytes, maxFiles: this.config.maxFiles };
    const readRoot = async (root: string) => {
      const read = await readRepository(root, globs, limits);
      return { ...read, sbom: await this.sbomOf(root, read.skipped) };
    };
    if (!isRemotePath(where)) return readRoot(await allowedRoot(where, this.config.allowedRoots));
    const policy = {
      allowedRemotes: this.config.allowedRemotes ?? [],
      remoteAllowLoopback: this.config.remoteAllowLoopback ?? false,
    };
    const checkout = await cloneRemote(checkRemote(where, policy), policy, {
      maxBytes: this.config.maxCloneBytes ?? 256 * 1024 * 1024,
      timeoutMs: (this.config.cloneTimeoutSeconds ?? 120) * 1000,
    });
    try {
      return await readRoot(checkout.dir);
    } finally {
      await checkout.dispose();
    }
  }

  /**
   * A data asset's records (an ingestion batch's, or retrieval documents'), read through the typed
   * client as the scanner for that tenant (data-asset-source.ts) and sampled for unmasked PII
   * (data-asset-pii.ts): only where it was seen is kept.
   */
  private async readDataAsset(
    tenantId: string,
    target: ScanTarget,
    correlationId: string,
    checkRetention: boolean,
  ): Promise<ScanInput> {
    const asset = dataAssetOf(target.path ?? '')!;
    const context = { tenantId, correlationId };
    // Read before the asset, so a compliance service that cannot answer fails the scan at once.
    const policies = checkRetention ? await this.retentionPolicies(context) : null;
    const ages: AssetAge[] = [];
    let records: AsyncIterable<SampledRecord>;
    let what: string;
    if (asset.source === 'ingestion') {
      if (!this.ingestion) throw new UnavailableError('No ingestion service is configured: data assets cannot be read');
      records = ingestionRecords(this.ingestion, context, asset.batchId);
      what = `Batch ${asset.batchId} not found at the ingestion service`;
    } else {
      if (!this.retrieval)
        throw new UnavailableError('No retrieval service is configured: its documents cannot be read');
      records = retrievalRecords(this.retrieval, context, asset.documentId, (doc) =>
        ages.push({
          at: `retrieval:document/${doc.id}`,
          recordType: 'rag_document',
          createdAt: new Date(doc.created_at),
        }),
      );
      what = `Document ${asset.documentId} not found at the retrieval service`;
    }
    try {
      const sample = await samplePii(target.path!, records, { maxRecords: this.config.maxDataAssetRecords ?? 10_000 });
      // Ingestion batches have no retention record type (platform/retention): nothing to check there.
      const overdue = policies ? overdueAssets(ages, policies, this.now()) : undefined;
      return { kind: 'data_asset', asset: target.path!, sightings: sample.sightings, overdue };
    } catch (err) {
      if (err instanceof ServiceCallError) {
        if (err.status === 404) throw new NotFoundError(what);
        throw new UnavailableError(
          `The ${asset.source} service could not be read (${err.status ?? 'unreachable'}): the data asset was not scanned`,
        );
      }
      throw err;
    }
  }

  /** The context's tenant's retention policies at the compliance service (only that tenant's: the call is made as it). */
  private async retentionPolicies(context: { tenantId: string; correlationId: string }) {
    if (!this.compliance)
      throw new UnavailableError('No compliance service is configured: retention rules cannot be checked');
    try {
      return (await this.compliance.retentionPolicies(context)).policies as ComplianceRetentionRuleJson[];
    } catch (err) {
      if (err instanceof ServiceCallError)
        throw new UnavailableError(
          `The compliance service could not be read (${err.status ?? 'unreachable'}): retention was not checked`,
        );
      throw err;
    }
  }

  /** The tenant's configuration in force, `{namespace: content}` (one namespace, or all). */
  private async readConfig(tenantId: string, target: ScanTarget, correlationId: string) {
    if (!this.configService)
      throw new UnavailableError('No config service is configured: config targets cannot be read');
    try {
      const view = await this.configService.effective(
        { tenantId, correlationId },
        tenantId,
        target.namespace ? { namespace: target.namespace } : {},
      );
      return view.config;
    } catch (err) {
      if (err instanceof ServiceCallError)
        throw new UnavailableError(
          `The config service could not be read (${err.status ?? 'unreachable'}): the configuration was not scanned`,
        );
      throw err;
    }
  }

  /** The CycloneDX SBOM of the repository's package-lock.json; null without one (or one that does not parse, listed as skipped). */
  private async sbomOf(root: string, skipped: ScanSummary['skipped_files']): Promise<Record<string, unknown> | null> {
    const text = await readLockfile(root, this.config.maxLockfileBytes ?? 32 * 1024 * 1024);
    if (text === null) return null;
    try {
      return cycloneDxFromLockfile(text, { tool: { name: SERVICE, version: this.version }, now: this.now() });
    } catch (err) {
      if (err instanceof LockfileError) {
        skipped.push({ path: 'package-lock.json', reason: 'sbom_unparsable' });
        return null;
      }
      throw err;
    }
  }

  /** The scan's CycloneDX 1.5 SBOM (404 when the scan has none: not a repository, or no package-lock.json). */
  async sbom(caller: Caller, input: { scanId: string; tenantId?: string }): Promise<Record<string, unknown>> {
    const scan = await this.get(caller, { id: input.scanId, tenantId: input.tenantId });
    const sbom = await scanStore.sbom(this.sql, scan.tenantId, scan.id);
    if (!sbom) throw new NotFoundError(`Scan ${input.scanId} has no SBOM`);
    return sbom;
  }

  async get(caller: Caller, input: { id: string; tenantId?: string }): Promise<Scan> {
    assertMayRead(caller, this.config.requireAuth);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'scanner.scan.read');
    const scan = await scanStore.get(this.sql, tenantId, input.id);
    if (!scan) throw new NotFoundError(`Scan ${input.id} not found`);
    return scan;
  }

  async list(caller: Caller, input: { targetId?: string; limit?: number; tenantId?: string }): Promise<Scan[]> {
    assertMayRead(caller, this.config.requireAuth);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'scanner.scan.list');
    return scanStore.list(this.sql, tenantId, input.targetId ?? null, checkLimit(input.limit));
  }

  async findings(
    caller: Caller,
    input: { targetId?: string; status?: FindingStatus; scanId?: string; limit?: number; tenantId?: string },
  ): Promise<Finding[]> {
    assertMayRead(caller, this.config.requireAuth);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'scanner.finding.list');
    return findingStore.list(this.sql, tenantId, {
      targetId: input.targetId,
      status: input.status,
      scanId: input.scanId,
      limit: checkLimit(input.limit),
    });
  }

  /**
   * The scan's report in SARIF 2.1.0, validated against the schema: the findings whose latest
   * sighting is this scan (suppressed ones with their justification and expiry).
   */
  async sarif(caller: Caller, input: { scanId: string; tenantId?: string }): Promise<Record<string, unknown>> {
    const scan = await this.get(caller, { id: input.scanId, tenantId: input.tenantId });
    const tenantId = scan.tenantId;
    const target = await targetStore.get(this.sql, tenantId, scan.targetId);
    const pack = await scannerPackStore.get(this.sql, tenantId, scan.packId, scan.packVersion);
    if (!target || !pack) throw new NotFoundError(`Scan ${input.scanId} not found`);
    const findings = (await findingStore.list(this.sql, tenantId, { scanId: scan.id, limit: 100_000 })).filter(
      (f) => f.status !== 'fixed',
    );
    const ids = [...new Set(findings.map((f) => f.suppressionId).filter((id): id is string => id !== null))];
    const suppressions = new Map((await suppressionStore.byIds(this.sql, tenantId, ids)).map((s) => [s.id, s]));
    const log = buildSarif({ scan, target, pack: pack.pack, findings, suppressions, serviceVersion: this.version });
    const problem = sarifProblem(log);
    // A report that is not valid SARIF is our bug, never the caller's: say so rather than serve it.
    if (problem) throw new Error(`the SARIF report failed its schema: ${problem}`);
    return log;
  }
}

function checkLimit(limit: number | undefined): number {
  if (limit === undefined) return 200;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT)
    throw InputError.of(['limit'], `Input should be between 1 and ${MAX_LIST_LIMIT}`);
  return limit;
}
