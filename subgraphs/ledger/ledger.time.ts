// created_at has microsecond precision and one textual form everywhere (API, export, hashing):
// ISO 8601 in UTC with six fractional digits and an explicit offset, e.g.
// `2026-11-22T04:05:06.123456+00:00`. Times travel inside the ledger as integer microseconds since
// the epoch (exact in a double until the year 2255).
import { performance } from 'node:perf_hooks';

/** Wall-clock microseconds: Date has milliseconds only, performance.now() adds the rest. */
export function nowMicros(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}

export function formatMicros(us: number): string {
  const ms = Math.floor(us / 1000);
  const micros = us - ms * 1000;
  // toISOString: YYYY-MM-DDTHH:MM:SS.mmmZ; keep up to the milliseconds, then add the last three digits.
  return new Date(ms).toISOString().slice(0, 23) + String(micros).padStart(3, '0') + '+00:00';
}

const FORMAT = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.(\d{3})(\d{3})\+00:00$/;

/** Inverse of formatMicros; undefined for any other text. */
export function parseMicros(text: string): number | undefined {
  const m = FORMAT.exec(text);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}.${m[2]}Z`);
  return Number.isNaN(ms) ? undefined : ms * 1000 + Number(m[3]);
}
