// A report's period from what a caller wrote: a quarter ("2026-Q3", UTC) or {start, end} as ISO
// 8601 instants (end exclusive). Pure: the clock is an argument. A period must start before now
// (a report of the current quarter is allowed: it is judged as of its generation) and span at
// most REPORT_LIMITS.periodDays.
import { InputError } from '../../platform/errors/domain-errors';
import { REPORT_LIMITS, type ReportPeriod } from './report.types';

const QUARTER = /^(\d{4})-Q([1-4])$/;
const DAY_MS = 86_400_000;

export type PeriodInput = string | { start: string; end: string };

export function parsePeriod(input: PeriodInput, now: Date): ReportPeriod {
  const period = typeof input === 'string' ? quarter(input) : interval(input);
  if (period.end.getTime() <= period.start.getTime())
    throw InputError.of(['period', 'end'], 'The period must end after it starts', 'value_error');
  if (period.end.getTime() - period.start.getTime() > REPORT_LIMITS.periodDays * DAY_MS)
    throw InputError.of(['period'], `A period spans at most ${REPORT_LIMITS.periodDays} days`, 'value_error');
  if (period.start.getTime() > now.getTime())
    throw InputError.of(['period', 'start'], 'The period has not started yet', 'value_error');
  return period;
}

function quarter(text: string): ReportPeriod {
  const m = QUARTER.exec(text);
  if (!m) throw InputError.of(['period'], "A quarter such as '2026-Q3', or {start, end}", 'value_error');
  const year = Number(m[1]);
  const q = Number(m[2]);
  return {
    start: new Date(Date.UTC(year, (q - 1) * 3, 1)),
    end: new Date(Date.UTC(year, q * 3, 1)),
    label: text,
  };
}

function interval(input: { start: string; end: string }): ReportPeriod {
  const start = instant(input.start, 'start');
  const end = instant(input.end, 'end');
  return { start, end, label: `${start.toISOString()}/${end.toISOString()}` };
}

function instant(value: unknown, field: string): Date {
  const d = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) ? new Date(value) : new Date(NaN);
  if (Number.isNaN(d.getTime()))
    throw InputError.of(['period', field], 'Input should be a valid ISO 8601 date or time', 'datetime_parsing');
  return d;
}

/** The instant a report's freshness is judged at: the period's end, or the generation if earlier. */
export function asOfInstant(period: Pick<ReportPeriod, 'end'>, generatedAt: Date): Date {
  return period.end.getTime() < generatedAt.getTime() ? period.end : generatedAt;
}
