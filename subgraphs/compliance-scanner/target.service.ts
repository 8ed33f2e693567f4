// Scan targets: a repository on the local disk inside SCANNER_ALLOWED_ROOTS (checked when the
// target is registered and again at every scan, since the disk may change), or a remote one under
// SCANNER_ALLOWED_REMOTES (remote-url.ts; checked likewise, cloned at every scan); a configuration:
// settings given inline (a profile, e.g. production's), or none for the platform's effective
// settings, read from the scanner's environment at scan time; or a config target: the tenant's
// configuration in force at the config service (one namespace, or all), read through the typed
// config client at scan time; or a data asset (an ingestion batch, `ingestion:batch/<id>`, or
// retrieval documents, `retrieval:documents` or `retrieval:document/<id>`, in `path`; see
// data-asset-source.ts), its records sampled at scan time. Secret values are never stored.
import { randomUUID } from 'node:crypto';
import type { Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import type { SqlExecutor } from '../../platform/db/sql';
import { ConflictError, InputError, NotFoundError } from '../../platform/errors/domain-errors';
import { auditEvent, sqlOutboxWriter } from '../../platform/outbox/outbox.writer';
import { DATA_ASSET } from './data-asset-source';
import { SERVICE } from './pack.service';
import { checkRemote, isRemotePath, remotePath } from './remote-url';
import { allowedRoot } from './repository-reader';
import { SCANNER_TARGET_CREATED_EVENT } from './compliance-scanner.audit';
import type { ScannerConfig } from './compliance-scanner.config';
import { assertMayRead, assertMayWrite } from './scanner.policy';
import { effectiveSettings } from './settings-input';
import type { ScanTarget, TargetKind } from './scanner.types';
import { targetStore } from './target.store';

/** A config-service namespace name. */
const NAMESPACE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

export interface CreateTargetInput {
  name: string;
  kind: TargetKind;
  path?: string | null;
  settings?: Record<string, unknown> | null;
  /** A config target's namespace (absent: every namespace). */
  namespace?: string | null;
  tenantId?: string;
}

export class TargetService {
  constructor(
    private readonly sql: SqlExecutor,
    private readonly access: TenantAccess,
    private readonly config: Pick<
      ScannerConfig,
      'allowedRoots' | 'allowedRemotes' | 'remoteAllowLoopback' | 'requireAuth'
    >,
  ) {}

  async create(caller: Caller, input: CreateTargetInput): Promise<ScanTarget> {
    const auth = assertMayWrite(caller);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'scanner.target.create');
    let path: string | null = null;
    let settings: Record<string, string> | null = null;
    if (input.kind !== 'config' && input.namespace)
      throw InputError.of(['namespace'], 'Only a config target takes a namespace');
    if (input.kind === 'config') {
      if (input.path) throw InputError.of(['repositoryPath'], 'A config target takes no path');
      if (input.settings) throw InputError.of(['settings'], 'A config target takes no settings');
      if (input.namespace !== undefined && input.namespace !== null && !NAMESPACE.test(input.namespace))
        throw InputError.of(
          ['namespace'],
          `String should match pattern '${NAMESPACE.source}'`,
          'string_pattern_mismatch',
        );
    } else if (input.kind === 'repository') {
      if (!input.path) throw InputError.of(['repositoryPath'], 'Field required', 'missing');
      if (input.settings) throw InputError.of(['settings'], 'A repository target takes no settings');
      path = isRemotePath(input.path)
        ? remotePath(checkRemote(input.path, this.config))
        : await allowedRoot(input.path, this.config.allowedRoots);
    } else if (input.kind === 'data_asset') {
      if (!input.path) throw InputError.of(['repositoryPath'], 'Field required', 'missing');
      if (!DATA_ASSET.test(input.path))
        throw InputError.of(
          ['repositoryPath'],
          `String should match pattern '${DATA_ASSET.source}'`,
          'string_pattern_mismatch',
        );
      if (input.settings) throw InputError.of(['settings'], 'A data_asset target takes no settings');
      path = input.path;
    } else {
      if (input.path) throw InputError.of(['repositoryPath'], 'A configuration target takes no path');
      if (input.settings) {
        const plain: Record<string, string> = {};
        for (const [k, v] of Object.entries(input.settings)) {
          if (typeof v !== 'string')
            throw InputError.of(['settings', k], 'Input should be a valid string', 'string_type');
          plain[k] = v;
        }
        settings = effectiveSettings(plain);
      }
    }
    const target = {
      id: randomUUID(),
      name: input.name,
      kind: input.kind,
      path,
      settings,
      namespace: input.kind === 'config' ? (input.namespace ?? null) : null,
      createdBy: auth.username,
    };
    return this.sql.transaction(async (tx) => {
      if (!(await targetStore.insert(tx, tenantId, target)))
        throw new ConflictError(`A target named '${input.name}' exists already`);
      await sqlOutboxWriter(tx, SERVICE).append(
        auditEvent(caller, {
          tenantId,
          type: SCANNER_TARGET_CREATED_EVENT,
          actor: auth.username,
          data: {
            target_id: target.id,
            name: target.name,
            kind: target.kind,
            profile: settings !== null,
            namespace: target.namespace,
          },
        }),
      );
      return (await targetStore.get(tx, tenantId, target.id))!;
    });
  }

  async get(caller: Caller, input: { id: string; tenantId?: string }): Promise<ScanTarget> {
    assertMayRead(caller, this.config.requireAuth);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'scanner.target.read');
    const target = await targetStore.get(this.sql, tenantId, input.id);
    if (!target) throw new NotFoundError(`Target ${input.id} not found`);
    return target;
  }

  async list(caller: Caller, input: { tenantId?: string } = {}): Promise<ScanTarget[]> {
    assertMayRead(caller, this.config.requireAuth);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'scanner.target.list');
    return targetStore.list(this.sql, tenantId);
  }
}
