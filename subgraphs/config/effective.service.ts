// The effective configuration of a tenant: for each namespace, the bundles in force for the
// platform, the tenant's suite and module, and the tenant itself, merged in that order
// (merge.rules.ts), with the provenance of every key. A partial rollout puts its bundle in force
// for the targets its consistent hash selects (rollout.rules.ts) and the previous bundle for the
// rest. Current reads come from an in-memory copy of what is in force (loaded at start, refreshed
// on every change this process commits and on `config.changed` from other replicas) and a cache
// of merged answers; `as_of` reads go to the change log.
import { requireAuth } from '../../platform/auth/caller';
import { isAdmin, isPlatformOperator } from '../../platform/auth/auth-context';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import { resolveTenant } from '../../platform/auth/tenant.rule';
import type { Database } from '../../platform/db/database';
import { InputError } from '../../platform/errors/domain-errors';
import { FLAGS_NAMESPACE, FlagSet } from '../../platform/flags/flag-set';
import { createConfigStore, OPERATOR_VIEW } from './config.store';
import {
  LAYERS,
  NAME_PATTERN,
  type Bundle,
  type Change,
  type ConfigCaller,
  type Effective,
  type Layer,
  type Provenance,
} from './config.types';
import { mergeLayers, pointerToken } from './merge.rules';
import { inRollout } from './rollout.rules';
import { builtInBackend, resolveReferences, type SecretBackend, type SecretRules } from './secret-reference';

export interface EffectiveQuery {
  tenantId?: string;
  suite?: string;
  module?: string;
  /** The user a `hash_by: user` rollout buckets (defaults to the caller). */
  user?: string;
  /** A change-log seq (digits) or an ISO 8601 time. */
  asOf?: string;
  namespace?: string;
  /** Resolve secret references (services with the `config:secrets` scope only). */
  resolveSecrets?: boolean;
}

export const SECRETS_SCOPE = 'config:secrets';
const MAX_CACHED = 10_000;

const targetKey = (layer: string, scope: string, namespace: string) => `${layer}\u0000${scope}\u0000${namespace}`;

interface InForce {
  change: Change;
  bundle: Bundle;
  previous: Bundle | null;
}

function parseAsOf(asOf: string | undefined): { seq?: number; at?: Date } | undefined {
  if (asOf === undefined) return undefined;
  if (/^\d{1,15}$/.test(asOf)) return { seq: Number(asOf) };
  const at = new Date(asOf);
  if (!/^\d{4}-\d{2}-\d{2}/.test(asOf) || Number.isNaN(at.getTime()))
    throw InputError.of(['query', 'as_of'], 'as_of is a change-log seq or an ISO 8601 time', 'value_error');
  return { at };
}

function checkName(field: 'suite' | 'module' | 'namespace', value: string | undefined): void {
  if (value !== undefined && !NAME_PATTERN.test(value))
    throw InputError.of(['query', field], `must match ${NAME_PATTERN.source}`, 'value_error.str.regex');
}

/**
 * What identifies a current answer: the same for every read that serialises to the same body,
 * new after every change of what this process serves. `seq` alone cannot say that: a replica may
 * learn of change 12 of one target before change 11 of another, and its answer at seq 12 then
 * changes when 11 arrives; `view` (bumped by every load and refresh that moved a target) does.
 */
export interface ServedKey {
  view: number;
  key: string;
}

interface Latest {
  view: number;
  tenantId: string;
  suite: string | undefined;
  module: string | undefined;
  user: string;
  result: Effective;
}

export class EffectiveService {
  private inForce = new Map<string, InForce>();
  private cache = new Map<string, Effective>();
  private flagSets = new WeakMap<Effective, FlagSet | null>();
  private served = new WeakMap<Effective, ServedKey>();
  /** The last answer `cached` gave, with what it was asked and in which view (see `cached`). */
  private latest: Latest | undefined;
  private headSeq = 0;
  private view = 0;
  private readonly backend: SecretBackend;

  constructor(
    private readonly db: Database,
    private readonly access: TenantAccess,
    private readonly secrets: SecretRules,
    backend?: SecretBackend,
  ) {
    this.backend = backend ?? builtInBackend(secrets);
  }

  /** Loads everything in force (at start). */
  async load(): Promise<void> {
    const changes = await createConfigStore(this.db.sql).allInForce();
    const next = new Map<string, InForce>();
    for (const entry of await this.withBundles(changes))
      next.set(targetKey(entry.change.layer, entry.change.scope, entry.change.namespace), entry);
    this.inForce = next;
    this.headSeq = Math.max(0, ...changes.map((c) => c.seq));
    this.view += 1;
    this.cache.clear();
  }

  /** Re-reads one target after a change (this process's, or another's announced on the bus). */
  async refresh(target: { layer: Layer; scope: string; namespace: string }): Promise<void> {
    const change = await createConfigStore(this.db.sql).latestChange(target);
    if (!change) return;
    const key = targetKey(target.layer, target.scope, target.namespace);
    const newer = () => {
      const current = this.inForce.get(key);
      return current !== undefined && current.change.seq >= change.seq;
    };
    if (newer()) return;
    const [entry] = await this.withBundles([change]);
    // Checked again: a refresh of a later change (this process's hook and the bus notice of the
    // previous change run side by side) may have finished while this one read its bundles.
    if (newer()) return;
    this.inForce.set(key, entry!);
    this.headSeq = Math.max(this.headSeq, change.seq);
    this.view += 1;
    this.cache.clear();
  }

  private async withBundles(changes: Change[]): Promise<InForce[]> {
    const ids = [...new Set(changes.flatMap((c) => [c.bundleId, c.previousBundleId ?? []].flat()))];
    const bundles = new Map((await createConfigStore(this.db.sql).bundles(OPERATOR_VIEW, ids)).map((b) => [b.id, b]));
    return changes.map((change) => ({
      change,
      bundle: bundles.get(change.bundleId)!,
      previous: change.previousBundleId ? (bundles.get(change.previousBundleId) ?? null) : null,
    }));
  }

  /** Whose changes a `configChanged` subscriber hears: its own tenant (an operator may name one, audited). */
  subscriptionTenant(caller: ConfigCaller, tenantId: string | undefined): Promise<string> {
    requireAuth(caller);
    return this.access.resolve(caller, tenantId, ['tenantId'], 'config.subscribe');
  }

  /** The caller's effective configuration (the tenant rule applies: a tenant reads its own only). */
  async effective(caller: ConfigCaller, query: EffectiveQuery): Promise<Effective> {
    const tenantId = await this.access.resolve(caller, query.tenantId, ['path', 'tenant_id'], 'config.effective');
    const user = this.checkedUser(caller, query);
    const asOf = parseAsOf(query.asOf);
    let result = asOf
      ? await this.computeAsOf(tenantId, query.suite, query.module, user, asOf)
      : this.cached(tenantId, query.suite, query.module, user);
    if (query.namespace !== undefined) result = this.onlyNamespace(result, query.namespace);
    if (query.resolveSecrets) {
      const auth = requireAuth(caller);
      if (!auth.isService || !auth.scopes.includes(SECRETS_SCOPE) || isPlatformOperator(auth))
        throw InputError.of(
          ['query', 'resolve_secrets'],
          `resolving secrets needs a service token with the '${SECRETS_SCOPE}' scope`,
          'value_error.scope',
        );
      result = {
        ...result,
        config: (await resolveReferences(result.config, this.secrets, this.backend)) as Effective['config'],
      };
    }
    return result;
  }

  /**
   * effective() when the answer needs nothing asynchronous: no `asOf`, no secrets to resolve, no
   * operator access to record. The same rules in the same order; undefined means "ask
   * effective()". Lets the REST door answer the common read without a promise (issue 35).
   */
  current(caller: ConfigCaller, query: EffectiveQuery): Effective | undefined {
    if (query.asOf !== undefined || query.resolveSecrets) return undefined;
    const tenantId = resolveTenant(caller, query.tenantId, ['path', 'tenant_id']);
    if (this.access.recordsAccess(caller, tenantId)) return undefined;
    const user = this.checkedUser(caller, query);
    const result = this.cached(tenantId, query.suite, query.module, user);
    return query.namespace !== undefined ? this.onlyNamespace(result, query.namespace) : result;
  }

  /** The query's names checked, and the user whose rollout buckets apply (another's: admins and services only). */
  private checkedUser(caller: ConfigCaller, query: EffectiveQuery): string {
    // Field by field rather than over a list of pairs: this runs on every read (no arrays to build).
    checkName('suite', query.suite);
    checkName('module', query.module);
    checkName('namespace', query.namespace);
    if (
      query.user !== undefined &&
      caller.auth &&
      query.user !== caller.auth.username &&
      !isAdmin(caller.auth) &&
      !caller.auth.isService
    )
      throw InputError.of(
        ['query', 'user'],
        "only admins and services read another user's configuration",
        'value_error',
      );
    return query.user ?? caller.auth?.username ?? '';
  }

  /**
   * The identity of a current answer (`effective()` without `asOf` or `resolveSecrets`), so a
   * door can keep its serialised form; undefined for any other answer.
   */
  servedKey(effective: Effective): ServedKey | undefined {
    return this.served.get(effective);
  }

  /** The merged flag set of a tenant (null when it has none), for OFREP. */
  flagSetOf(effective: Effective): FlagSet | null {
    if (this.flagSets.has(effective)) return this.flagSets.get(effective)!;
    const content = effective.config[FLAGS_NAMESPACE];
    let set: FlagSet | null;
    try {
      set = content ? new FlagSet(content) : null;
    } catch {
      // Each layer's flag set was checked when published; a merge that breaks flagd's format
      // (a tenant layer removing a variant its platform layer targets) serves no flags.
      set = null;
    }
    this.flagSets.set(effective, set);
    return set;
  }

  /** The answer for current reads, from memory (no database round trip once cached). */
  private cached(tenantId: string, suite: string | undefined, module: string | undefined, user: string): Effective {
    // The same question as the last one (a client polling its configuration): four comparisons
    // instead of building the key string and hashing it, on every read (issue 30). Only while
    // the view is the one it was answered in: a change moves the view on.
    const latest = this.latest;
    if (
      latest !== undefined &&
      latest.view === this.view &&
      latest.tenantId === tenantId &&
      latest.user === user &&
      latest.suite === suite &&
      latest.module === module
    )
      return latest.result;
    const result = this.cachedByKey(tenantId, suite, module, user);
    this.latest = { view: this.view, tenantId, suite, module, user, result };
    return result;
  }

  private cachedByKey(
    tenantId: string,
    suite: string | undefined,
    module: string | undefined,
    user: string,
  ): Effective {
    const key = `${tenantId}\u0000${suite ?? ''}\u0000${module ?? ''}\u0000${user}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const entries: InForce[] = [];
    for (const [layer, scope] of this.scopesOf(tenantId, suite, module))
      for (const entry of this.inForce.values())
        if (entry.change.layer === layer && entry.change.scope === scope) entries.push(entry);
    const result = this.merge(tenantId, user, entries, this.headSeq);
    if (this.cache.size >= MAX_CACHED) this.cache.clear();
    this.cache.set(key, result);
    this.served.set(result, {
      view: this.view,
      key: JSON.stringify([tenantId, result.seq, this.view, suite ?? '', module ?? '', user]),
    });
    return result;
  }

  private async computeAsOf(
    tenantId: string,
    suite: string | undefined,
    module: string | undefined,
    user: string,
    asOf: { seq?: number; at?: Date },
  ): Promise<Effective> {
    const targets = this.scopesOf(tenantId, suite, module).map(([layer, scope]) => ({ layer, scope }));
    const changes = await createConfigStore(this.db.sql).changesInForce(targets, asOf);
    return this.merge(tenantId, user, await this.withBundles(changes), Math.max(0, ...changes.map((c) => c.seq)));
  }

  private scopesOf(tenantId: string, suite?: string, module?: string): [Layer, string][] {
    const scopes: [Layer, string][] = [['platform', '']];
    if (suite) scopes.push(['suite', suite]);
    if (module) scopes.push(['module', module]);
    scopes.push(['tenant', tenantId]);
    return scopes;
  }

  private merge(tenantId: string, user: string, entries: InForce[], seq: number): Effective {
    const byNamespace = new Map<string, { content: Record<string, unknown>; source: Provenance }[]>();
    const order = (l: Layer) => LAYERS.indexOf(l);
    for (const { change, bundle, previous } of [...entries].sort(
      (a, b) => order(a.change.layer) - order(b.change.layer),
    )) {
      const key = change.hashBy === 'user' && user ? user : tenantId;
      const chosen = inRollout(targetKey(change.layer, change.scope, change.namespace), key, change.percentage)
        ? bundle
        : previous;
      if (!chosen) continue;
      const list = byNamespace.get(change.namespace) ?? [];
      list.push({
        content: chosen.content,
        source: { pointer: '', layer: change.layer, bundleId: chosen.id, version: chosen.version, seq: change.seq },
      });
      byNamespace.set(change.namespace, list);
    }
    const config: Effective['config'] = {};
    const provenance: Provenance[] = [];
    for (const [namespace, layers] of [...byNamespace].sort(([a], [b]) => a.localeCompare(b))) {
      const merged = mergeLayers(layers);
      config[namespace] = merged.value;
      for (const [pointer, source] of merged.setBy)
        provenance.push({ ...source, pointer: `/${pointerToken(namespace)}${pointer}` });
    }
    return { tenantId, config, provenance, seq };
  }

  private onlyNamespace(e: Effective, namespace: string): Effective {
    const prefix = `/${pointerToken(namespace)}/`;
    const narrowed = {
      ...e,
      config: namespace in e.config ? { [namespace]: e.config[namespace]! } : {},
      provenance: e.provenance.filter((p) => p.pointer.startsWith(prefix)),
    };
    const served = this.served.get(e);
    if (served)
      this.served.set(narrowed, { view: served.view, key: `${served.key.slice(0, -1)},${JSON.stringify(namespace)}]` });
    return narrowed;
  }
}
