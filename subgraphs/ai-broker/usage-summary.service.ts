// GET /api/ai/usage: the tenant's requests, tokens and cost by model over a range (default: today
// from 00:00 UTC to now).
import type { Caller } from '../../platform/auth/caller';
import { InputError, type InputIssue } from '../../platform/errors/domain-errors';
import type { AiBrokerDeps } from './ai-broker.deps';
import type { BrokerAccess } from './broker-access';
import type { UsageSummary } from './usage.store';

export class UsageSummaryService {
  constructor(
    private readonly deps: Pick<AiBrokerDeps, 'usage'>,
    private readonly access: BrokerAccess,
  ) {}

  async usage(
    caller: Caller,
    range: { from?: string; to?: string },
  ): Promise<UsageSummary & { tenant_id: string; from: string; to: string }> {
    const tenantId = await this.access.tenantOf(caller, 'read', 'ai.usage');
    const issues: InputIssue[] = [];
    const parse = (field: string, v: string | undefined, fallback: Date) => {
      if (v === undefined) return fallback;
      const d = new Date(v);
      // ISO 8601 dates from 1970 to 9999 only: year 0 and its like parse in JS but not in the database.
      if (
        !/^\d{4}-\d{2}-\d{2}/.test(v) ||
        Number.isNaN(d.getTime()) ||
        d.getUTCFullYear() < 1970 ||
        d.getUTCFullYear() > 9999
      ) {
        issues.push({
          loc: [field],
          msg: 'Input should be a valid ISO 8601 datetime from 1970 on',
          type: 'datetime_parsing',
        });
        return fallback;
      }
      return d;
    };
    const now = new Date();
    // `to` a second ahead: a call recorded just now is inside the default range.
    const to = parse('to', range.to, new Date(now.getTime() + 1000));
    const from = parse('from', range.from, new Date(`${now.toISOString().slice(0, 10)}T00:00:00Z`));
    if (issues.length > 0) throw new InputError(issues);
    return {
      tenant_id: tenantId,
      from: from.toISOString(),
      to: to.toISOString(),
      ...(await this.deps.usage.summary(tenantId, from, to)),
    };
  }
}
