// The GraphQL connection reads one page; the total is counted only when the client asks for it.
import type { GroupCommitter } from '../../../subgraphs/ledger/ledger-append.service';
import { TenantAccess } from '../../../platform/auth/tenant-access';
import { LedgerService } from '../../../subgraphs/ledger/ledger.service';
import type { LedgerStore } from '../../../subgraphs/ledger/ledger.store';
import { strictFake } from '../../support/strict-fake';

describe('eventsConnection', () => {
  const caller = {
    auth: { username: 'u', tenantId: 't1', roles: ['user'], scopes: ['read'], isService: false },
    correlationId: 'c',
  };

  function serviceWith(counted: string[]) {
    const store = strictFake<LedgerStore>(
      {
        async eventsAfter() {
          return [];
        },
        async countEvents(tenantId) {
          counted.push(tenantId);
          return 42;
        },
      },
      'store',
    );
    return new LedgerService(store, strictFake<GroupCommitter>({}, 'committer'), new TenantAccess(async () => {}));
  }

  it('does not count the chain unless totalCount is read', async () => {
    const counted: string[] = [];
    const page = await serviceWith(counted).eventsConnection(caller, { filter: {} });
    expect(page.events).toEqual([]);
    expect(counted).toEqual([]);
    expect(await page.totalCount()).toBe(42);
    expect(counted).toEqual(['t1']);
  });
});
