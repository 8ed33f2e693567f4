// Publishing and reading bundles. A bundle is immutable and content-addressed: its id is new, its
// sha256 is the SHA-256 of its RFC 8785 canonical JSON, and publishing the same content to the
// same layer, scope and namespace again returns the stored bundle. Before anything is stored the
// content passes the size and depth limits, its secret references the allowed roots, and the
// namespace's JSON Schema from the schema registry (`flags`: flagd's format and limits).
import { randomUUID } from 'node:crypto';
import { requireAuth } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import type { Database } from '../../platform/db/database';
import { InputError, NotFoundError } from '../../platform/errors/domain-errors';
import { FLAGS_NAMESPACE, FlagSet, FlagSetError } from '../../platform/flags/flag-set';
import { auditEvent, sqlOutboxWriter } from '../../platform/outbox/outbox.writer';
import { canonicalText, diff, sha256Hex, type DiffOp } from './bundle.rules';
import { viewerOf, writerTenant } from './config.access';
import { CONFIG_AUDIT } from './config.audit';
import { createConfigStore } from './config.store';
import { clampLimit, NAME_PATTERN, type Bundle, type ConfigCaller, type Layer, type Target } from './config.types';
import type { NamespaceSchemas } from './namespace-schemas';
import { checkReferences, type SecretRules } from './secret-reference';

export interface PublishInput {
  layer: Layer;
  scope?: string;
  namespace: string;
  content: Record<string, unknown>;
  tenantId?: string;
}

const CONTENT = ['body', 'content'];

function checkName(value: string, field: string): void {
  if (!NAME_PATTERN.test(value))
    throw InputError.of(['body', field], `must match ${NAME_PATTERN.source}`, 'value_error.str.regex');
}

export class BundleService {
  constructor(
    private readonly db: Database,
    private readonly access: TenantAccess,
    private readonly schemas: NamespaceSchemas,
    private readonly secrets: SecretRules,
  ) {}

  async publish(caller: ConfigCaller, input: PublishInput): Promise<{ bundle: Bundle; created: boolean }> {
    const { auth, tenantId } = await writerTenant(
      this.access,
      caller,
      input.layer,
      input.tenantId,
      'config.bundles.publish',
    );
    checkName(input.namespace, 'namespace');
    let scope = '';
    if (input.layer === 'tenant') scope = tenantId!;
    else if (input.layer !== 'platform') {
      if (!input.scope)
        throw InputError.of(
          ['body', 'scope'],
          `a ${input.layer} bundle names its ${input.layer}`,
          'value_error.missing',
        );
      checkName(input.scope, 'scope');
      scope = input.scope;
    }
    const target: Target = { layer: input.layer, scope, namespace: input.namespace };
    const text = canonicalText(input.content, CONTENT);
    checkReferences(input.content, this.secrets, CONTENT);
    let schemaVersion: string | null = null;
    if (input.namespace === FLAGS_NAMESPACE) {
      try {
        // The platform layer holds complete flag definitions; the layers above patch them
        // (merge rules), so only their limits can be checked alone.
        if (input.layer === 'platform') new FlagSet(input.content);
        else FlagSet.checkLimits(input.content);
      } catch (err) {
        if (err instanceof FlagSetError)
          throw InputError.of([...CONTENT, err.pointer], err.message, 'value_error.flags');
        throw err;
      }
    } else {
      const ctx = { token: caller.token, tenantId: tenantId ?? auth.tenantId, correlationId: caller.correlationId };
      schemaVersion = (await this.schemas.check(ctx, input.namespace, input.content, CONTENT)).version;
    }
    const sha256 = sha256Hex(text);
    return this.db.sql.transaction(async (q) => {
      const store = createConfigStore(q);
      await store.lockTarget(target);
      const existing = await store.bundleBySha(target, sha256);
      if (existing) return { bundle: existing, created: false };
      const bundle = await store.insertBundle({
        id: randomUUID(),
        tenantId,
        ...target,
        content: JSON.parse(text) as Record<string, unknown>,
        sha256,
        schemaVersion,
        author: auth.username,
      });
      await sqlOutboxWriter(q, 'config').append(
        auditEvent(caller, {
          tenantId: tenantId ?? auth.tenantId,
          type: CONFIG_AUDIT.bundlePublished,
          actor: auth.username,
          data: { bundle_id: bundle.id, ...target, version: bundle.version, sha256, schema_version: schemaVersion },
        }),
      );
      return { bundle, created: true };
    });
  }

  /** A bundle the caller may see (its tenant's, or any for an operator); another tenant's is not found. */
  async get(caller: ConfigCaller, id: string): Promise<Bundle> {
    const auth = requireAuth(caller);
    const [bundle] = await createConfigStore(this.db.sql).bundles(viewerOf(auth), [id]);
    if (!bundle) throw new NotFoundError('Bundle not found');
    return bundle;
  }

  /** The newest bundles the caller may see (its tenant's, or every one for an operator). */
  async recent(caller: ConfigCaller, limit = 50): Promise<Bundle[]> {
    const auth = requireAuth(caller);
    return createConfigStore(this.db.sql).recentBundles(viewerOf(auth), clampLimit(limit));
  }

  async versions(caller: ConfigCaller, id: string): Promise<Bundle[]> {
    const bundle = await this.get(caller, id);
    return createConfigStore(this.db.sql).bundleVersions(viewerOf(requireAuth(caller)), bundle);
  }

  /** RFC 6902 operations from bundle `fromId` to bundle `toId` (both visible to the caller, any targets). */
  async diff(caller: ConfigCaller, fromId: string, toId: string): Promise<{ from: Bundle; to: Bundle; ops: DiffOp[] }> {
    const [from, to] = await Promise.all([this.get(caller, fromId), this.get(caller, toId)]);
    return { from, to, ops: diff(from.content, to.content) };
  }
}
