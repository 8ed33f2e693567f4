// Streaming verification over a fake store, CSV cell neutralising and the
// auditTrail DataLoader batching, all without a database.
import type { LedgerProofService } from '../../../subgraphs/ledger/ledger-proof.service';
import { ledgerContext } from '../../../subgraphs/ledger/graphql.context';
import { neutraliseCell } from '../../../subgraphs/ledger/ledger-export.service';
import { chainHash, contentHash, GENESIS_HASH } from '../../../subgraphs/ledger/ledger.hash';
import type { LedgerService } from '../../../subgraphs/ledger/ledger.service';
import type { LedgerStore } from '../../../subgraphs/ledger/ledger.store';
import type { ChainRow } from '../../../subgraphs/ledger/ledger.types';
import { verifyTenantChain } from '../../../subgraphs/ledger/ledger-verify.service';
import { strictFake } from '../../support/strict-fake';

function chain(tenant: string, n: number): ChainRow[] {
  const rows: ChainRow[] = [];
  let previous = GENESIS_HASH;
  for (let seq = 1; seq <= n; seq++) {
    const createdAt = `2026-11-22T00:00:00.${String(seq).padStart(6, '0')}+00:00`;
    const data = `{"seq":${seq}}`;
    const content = contentHash({
      tenantId: tenant,
      eventType: 'e',
      eventDataCanonical: data,
      userId: seq % 2 ? 'u' : null,
      createdAt,
    });
    const ch = chainHash(content, previous);
    rows.push({
      seq,
      event_type: 'e',
      event_data: data,
      user_id: seq % 2 ? 'u' : null,
      created_at_text: createdAt,
      content_hash: content,
      previous_hash: previous,
      chain_hash: ch,
    });
    previous = ch;
  }
  return rows;
}

function pagedStore(
  rows: ChainRow[],
  head = { lastSeq: rows.length, lastHash: rows[rows.length - 1]?.chain_hash ?? GENESIS_HASH },
) {
  const pages: number[] = [];
  const store = strictFake<LedgerStore>({
    async chainPage(_t, afterSeq, limit) {
      pages.push(afterSeq);
      return rows.filter((r) => r.seq > afterSeq).slice(0, limit);
    },
    async getHead(tenantId) {
      return { tenantId, ...head, lastCreatedAtUs: 0, treeFrontier: '' };
    },
  });
  return { store, pages };
}

describe('verifyTenantChain', () => {
  it('walks the chain page by page', async () => {
    const { store, pages } = pagedStore(chain('t', 25));
    expect(await verifyTenantChain(store, 't', 10)).toEqual({ valid: true, totalEvents: 25, error: null });
    expect(pages).toEqual([0, 10, 20]);
  });
  it('names the event and the mismatch', async () => {
    const rows = chain('t', 5);
    rows[2] = { ...rows[2]!, event_data: '{"seq":99}' };
    expect((await verifyTenantChain(pagedStore(rows).store, 't', 2)).error).toMatch(/^Event 3: content_hash mismatch/);
    const relinked = chain('t', 5);
    relinked[3] = { ...relinked[3]!, previous_hash: 'f'.repeat(64) };
    expect(await verifyTenantChain(pagedStore(relinked).store, 't')).toMatchObject({
      valid: false,
      totalEvents: 3,
      error: expect.stringMatching(/^Event 4: previous_hash mismatch/),
    });
    // A chain moved to another tenant no longer hashes.
    expect((await verifyTenantChain(pagedStore(chain('t', 2)).store, 'other')).error).toMatch(
      /^Event 1: content_hash mismatch/,
    );
  });
  it('ignores events appended after it started (beyond the head it read first)', async () => {
    const rows = chain('t', 6);
    const { store } = pagedStore(rows, { lastSeq: 4, lastHash: rows[3]!.chain_hash });
    expect(await verifyTenantChain(store, 't', 3)).toEqual({ valid: true, totalEvents: 4, error: null });
  });
});

describe('CSV cells', () => {
  it.each([
    ['=1+2', "'=1+2"],
    ['+x', "'+x"],
    ['-2', "'-2"],
    ['@SUM', "'@SUM"],
    ['\tx', "'\tx"],
    ['\rx', "'\rx"],
    ['plain', 'plain'],
    ['a=b', 'a=b'],
  ])('%j → %j', (input, out) => {
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
    const ctx = ledgerContext(
      { headerTenant: 't', correlationId: 'c' },
      service,
      false,
      strictFake<LedgerProofService>({}),
    );
    await Promise.all(
      ['a', 'b', 'c', 'a'].map((username) => ctx.loaders.auditTrail.load({ username, first: 20, before: null })),
    );
    expect(calls).toEqual([['a', 'b', 'c']]);
  });
});
