// Tenant access rules, streaming verification over a fake store, CSV cell neutralising and the
// auditTrail DataLoader batching, all without a database.
import type { AuthContext } from '../../../platform/auth/auth-context';
import { ForbiddenError, InputError } from '../../../platform/errors/domain-errors';
import { buildContext } from '../../../subgraphs/ledger/graphql.context';
import { mayVerifyAllTenants, resolveTenant } from '../../../subgraphs/ledger/ledger.access';
import { neutraliseCell } from '../../../subgraphs/ledger/ledger-export.service';
import { chainHash, contentHash, GENESIS_HASH } from '../../../subgraphs/ledger/ledger.hash';
import type { LedgerService } from '../../../subgraphs/ledger/ledger.service';
import type { LedgerStore } from '../../../subgraphs/ledger/ledger.store';
import type { ChainRow } from '../../../subgraphs/ledger/ledger.types';
import { verifyTenantChain } from '../../../subgraphs/ledger/ledger-verify.service';
import { strictFake } from './strict-fake';

const user = (tenantId: string, roles = ['user']): AuthContext => ({ username: 'u', tenantId, roles, scopes: ['read'], isService: roles.some((r) => r.startsWith('service:')) });

describe('resolveTenant', () => {
  it('uses the token\'s tenant and refuses others', () => {
    expect(resolveTenant({ auth: user('a') }, undefined, ['q'])).toBe('a');
    expect(resolveTenant({ auth: user('a') }, 'a', ['q'])).toBe('a');
    expect(() => resolveTenant({ auth: user('a') }, 'b', ['q'])).toThrow(ForbiddenError);
    // A spoofed header does not widen a token.
    expect(() => resolveTenant({ auth: user('a'), headerTenant: 'b' }, 'b', ['q'])).toThrow(ForbiddenError);
  });
  it('lets platform admins and services act for any tenant', () => {
    expect(resolveTenant({ auth: user('default', ['admin']) }, 'b', ['q'])).toBe('b');
    expect(resolveTenant({ auth: user('x', ['service:workflow']) }, 'b', ['q'])).toBe('b');
    expect(() => resolveTenant({ auth: user('a', ['admin']) }, 'b', ['q'])).toThrow(ForbiddenError);
  });
  it('anonymous: header and requested tenant must agree; one of them is required', () => {
    expect(resolveTenant({ headerTenant: 'a' }, undefined, ['q'])).toBe('a');
    expect(resolveTenant({}, 'a', ['q'])).toBe('a');
    expect(() => resolveTenant({ headerTenant: 'a' }, 'b', ['q'])).toThrow(ForbiddenError);
    expect(() => resolveTenant({}, undefined, ['query', 'tenant_id'])).toThrow(InputError);
  });
  it('only admins, services and unpinned anonymous callers verify every tenant', () => {
    expect(mayVerifyAllTenants({ auth: user('default', ['admin']) })).toBe(true);
    expect(mayVerifyAllTenants({ auth: user('a') })).toBe(false);
    expect(mayVerifyAllTenants({ headerTenant: 'a' })).toBe(false);
    expect(mayVerifyAllTenants({})).toBe(true);
  });
});

function chain(tenant: string, n: number): ChainRow[] {
  const rows: ChainRow[] = [];
  let previous = GENESIS_HASH;
  for (let seq = 1; seq <= n; seq++) {
    const createdAt = `2026-11-22T00:00:00.${String(seq).padStart(6, '0')}+00:00`;
    const data = `{"seq":${seq}}`;
    const content = contentHash({ tenantId: tenant, eventType: 'e', eventDataCanonical: data, userId: seq % 2 ? 'u' : null, createdAt });
    const ch = chainHash(content, previous);
    rows.push({ seq, event_type: 'e', event_data: data, user_id: seq % 2 ? 'u' : null, created_at_text: createdAt, content_hash: content, previous_hash: previous, chain_hash: ch });
    previous = ch;
  }
  return rows;
}

function pagedStore(rows: ChainRow[], head = { lastSeq: rows.length, lastHash: rows[rows.length - 1]?.chain_hash ?? GENESIS_HASH }) {
  const pages: number[] = [];
  const store = strictFake<LedgerStore>({
    async chainPage(_t, afterSeq, limit) {
      pages.push(afterSeq);
      return rows.filter((r) => r.seq > afterSeq).slice(0, limit);
    },
    async getHead(tenantId) {
      return { tenantId, ...head, lastCreatedAtUs: 0 };
    },
  });
  return { store, pages };
}

describe('verifyTenantChain', () => {
  it('walks the chain page by page', async () => {
    const { store, pages } = pagedStore(chain('t', 25));
    expect(await verifyTenantChain(store, 't', 10)).toEqual({ valid: true, total_events: 25, error: null });
    expect(pages).toEqual([0, 10, 20]);
  });
  it('names the event and the mismatch', async () => {
    const rows = chain('t', 5);
    rows[2] = { ...rows[2]!, event_data: '{"seq":99}' };
    expect((await verifyTenantChain(pagedStore(rows).store, 't', 2)).error).toMatch(/^Event 3: content_hash mismatch/);
    const relinked = chain('t', 5);
    relinked[3] = { ...relinked[3]!, previous_hash: 'f'.repeat(64) };
    expect(await verifyTenantChain(pagedStore(relinked).store, 't')).toMatchObject({ valid: false, total_events: 3, error: expect.stringMatching(/^Event 4: previous_hash mismatch/) });
    // A chain moved to another tenant no longer hashes.
    expect((await verifyTenantChain(pagedStore(chain('t', 2)).store, 'other')).error).toMatch(/^Event 1: content_hash mismatch/);
  });
  it('ignores events appended after it started (beyond the head it read first)', async () => {
    const rows = chain('t', 6);
    const { store } = pagedStore(rows, { lastSeq: 4, lastHash: rows[3]!.chain_hash });
    expect(await verifyTenantChain(store, 't', 3)).toEqual({ valid: true, total_events: 4, error: null });
  });
});

describe('CSV cells', () => {
  it.each([['=1+2', "'=1+2"], ['+x', "'+x"], ['-2', "'-2"], ['@SUM', "'@SUM"], ['\tx', "'\tx"], ['\rx', "'\rx"], ['plain', 'plain'], ['a=b', 'a=b']])('%j → %j', (input, out) => {
    expect(neutraliseCell(input)).toBe(out);
  });
});

describe('User.auditTrail DataLoader', () => {
  it('batches the users of one request into one service call', async () => {
    const calls: string[][] = [];
    const service = strictFake<LedgerService>({
      async auditTrails(_caller, usernames) {
        calls.push([...usernames]);
        return usernames.map(() => []);
      },
    });
    const ctx = buildContext({ headerTenant: 't' }, service, false);
    await Promise.all(['a', 'b', 'c', 'a'].map((username) => ctx.loaders.auditTrail.load({ username, first: 20, before: null })));
    expect(calls).toEqual([['a', 'b', 'c']]);
  });
});
