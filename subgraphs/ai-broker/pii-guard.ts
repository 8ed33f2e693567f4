// Redaction both ways for the broker: the platform redactor (platform/redaction) with addresses
// and the tenant's own RE2 patterns, in the mode ENABLE_PII_REDACTION / REDACTION_MODE (or the
// tenant's policy, which may change at run time: tenant-policies.ts) ask for. `tokenize` mints reversible tokens into the tenant's vault; `hash` is
// SHA-256 keyed per tenant (a bare SHA-256 of an SSN is reversed by enumeration). Nothing here
// logs or returns a detected value.
import { createHmac } from 'node:crypto';
import {
  createRedactor,
  customPatternDetector,
  EXTENDED_DETECTORS,
  keyedHash,
  mask,
  remove,
  tokenizing,
  type Redactor,
  type RedactionStrategy,
} from '../../platform/redaction';
import type { RedactionMode } from './model-catalogue';
import type { TenantPolicies } from './tenant-policies';
import type { MintedToken, TokenVault } from './token-vault.store';
import type { RedactionCounts } from './ai-broker.types';

export interface RedactionSession {
  readonly mode: RedactionMode | 'off';
  text(value: string): string;
  value<T>(value: T): T;
  /** Masked, uncounted, nothing minted: where the spans lie (streaming). */
  preview(value: string): string;
  /** Spans replaced so far, per category (only categories with at least one). */
  counts(): RedactionCounts;
  /** Tokens minted in this session (tokenize mode), to be stored before the prompt leaves. */
  minted(): MintedToken[];
}

export class PiiGuard {
  /** Per tenant, with the custom patterns it was built from (a policy change rebuilds it). */
  private readonly redactors = new Map<string, { patterns: string; redactor: Redactor }>();

  constructor(
    private readonly settings: { enabled: boolean; mode: RedactionMode },
    private readonly vault: TokenVault,
    private readonly key: Buffer,
    private readonly policies: Pick<TenantPolicies, 'of'>,
  ) {}

  private redactorFor(tenantId: string): Redactor {
    const custom = this.policies.of(tenantId).customPatterns ?? [];
    const patterns = JSON.stringify(custom);
    let r = this.redactors.get(tenantId);
    if (!r || r.patterns !== patterns) {
      const detectors = [...EXTENDED_DETECTORS, ...custom.map(customPatternDetector)];
      r = { patterns, redactor: createRedactor({ detectors, strategies: { mask, remove } }) };
      this.redactors.set(tenantId, r);
    }
    return r.redactor;
  }

  modeOf(tenantId: string): RedactionMode | 'off' {
    if (!this.settings.enabled) return 'off';
    return this.policies.of(tenantId).redactionMode ?? this.settings.mode;
  }

  /** A session for one request and direction: one strategy, counts and minted tokens gathered. */
  session(tenantId: string): RedactionSession {
    const mode = this.modeOf(tenantId);
    const counts: RedactionCounts = {};
    const minted: MintedToken[] = [];
    if (mode === 'off') {
      return { mode, text: (v) => v, value: (v) => v, preview: (v) => v, counts: () => counts, minted: () => minted };
    }
    const redactor = this.redactorFor(tenantId);
    let replace: RedactionStrategy;
    if (mode === 'tokenize') {
      replace = tokenizing((value, category) => {
        const t = this.vault.mint(tenantId, value, category);
        minted.push(t);
        return t.token;
      });
    } else if (mode === 'hash') {
      replace = keyedHash(createHmac('sha256', this.key).update(`hash:${tenantId}`).digest());
    } else {
      replace = mode === 'remove' ? remove : mask;
    }
    const add = (c: Record<string, number>) => {
      for (const [k, n] of Object.entries(c)) if (n > 0) counts[k] = (counts[k] ?? 0) + n;
    };
    return {
      mode,
      text(v) {
        const r = redactor.redactText(v, { replace });
        add(r.counts);
        return r.text;
      },
      value<T>(v: T): T {
        const r = redactor.redactValueCounted(v, { replace });
        add(r.counts);
        return r.value as T;
      },
      preview: (v) => redactor.redactText(v, { replace: mask }).text,
      counts: () => counts,
      minted: () => minted,
    };
  }
}
