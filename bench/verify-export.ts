// An independent check of a ledger export, using only the spec's rules (spec 03, "Hash rules")
// and nothing from the ledger's code:
//   content_hash = SHA-256 hex of the RFC 8785 JSON of {tenant_id, event_type, event_data,
//                  user_id (null when absent), created_at}
//   chain_hash   = SHA-256 hex of content_hash followed by previous_hash
//   previous_hash of the first event = 64 zeros, of every other = chain_hash of the one before.
// The CSV export has no event_data, so the events come from `GET /events` (JSON) and the CSV is
// checked row by row against them (same ids, order, timestamps and chain hashes).
//
//   npm run bench -- verify-export --url http://127.0.0.1:8136 --tenant acme
//   npm run bench -- verify-export --csv export.csv --events events.json
// (events.json: the `events` array of GET /events pages, or an object with such an array.)
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import canonicalize from 'canonicalize';

export interface ExportedEvent {
  id: string;
  tenant_id: string;
  event_type: string;
  event_data: Record<string, unknown>;
  user_id: string | null;
  correlation_id?: string | null;
  description?: string | null;
  created_at: string;
  content_hash: string;
  previous_hash: string;
  chain_hash: string;
}

export interface ExportCheck {
  valid: boolean;
  events: number;
  csvRows: number;
  errors: string[];
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const HEADER = [
  'id',
  'tenant_id',
  'event_type',
  'created_at',
  'user_id',
  'correlation_id',
  'description',
  'chain_hash',
];

/**
 * RFC 4180 records (quoted fields, doubled quotes, CRLF or LF line ends). Hand-written because
 * the project ships a CSV writer only, and an auditor's script should need nothing else.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || (ch === '\r' && text[i + 1] === '\n')) {
      if (ch === '\r') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += ch;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** The export writes `'` before cells a spreadsheet would run as formulas; undo that. */
function cell(value: string): string {
  return /^'[=+\-@\t\r]/.test(value) ? value.slice(1) : value;
}

export function verifyExport(csvText: string, events: ExportedEvent[]): ExportCheck {
  const errors: string[] = [];
  let previous = '0'.repeat(64);
  events.forEach((e, i) => {
    const n = i + 1;
    if (e.previous_hash !== previous)
      errors.push(`event ${n} (${e.id}): previous_hash is not the chain_hash of event ${n - 1}`);
    const content = sha256(
      canonicalize({
        tenant_id: e.tenant_id,
        event_type: e.event_type,
        event_data: e.event_data,
        user_id: e.user_id ?? null,
        created_at: e.created_at,
      })!,
    );
    if (content !== e.content_hash) errors.push(`event ${n} (${e.id}): content_hash does not match its fields`);
    if (sha256(e.content_hash + e.previous_hash) !== e.chain_hash)
      errors.push(`event ${n} (${e.id}): chain_hash does not match content_hash + previous_hash`);
    previous = e.chain_hash;
  });

  const [header, ...rows] = parseCsv(csvText).filter((r) => r.length > 1 || r[0] !== '');
  if (!header || header.join(',') !== HEADER.join(',')) errors.push(`CSV header is not ${HEADER.join(',')}`);
  if (rows.length !== events.length) errors.push(`CSV has ${rows.length} rows, the events JSON ${events.length}`);
  rows.forEach((r, i) => {
    const e = events[i];
    if (!e) return;
    const [id, tenant, type, createdAt, user, correlation, description, chain] = r.map(cell);
    const mismatches = [
      id !== e.id && 'id',
      tenant !== e.tenant_id && 'tenant_id',
      type !== e.event_type && 'event_type',
      createdAt !== e.created_at && 'created_at',
      user !== (e.user_id ?? '') && 'user_id',
      correlation !== (e.correlation_id ?? '') && 'correlation_id',
      description !== (e.description ?? '') && 'description',
      chain !== e.chain_hash && 'chain_hash',
    ].filter(Boolean);
    if (mismatches.length > 0) errors.push(`CSV row ${i + 1}: ${mismatches.join(', ')} differ from the events JSON`);
  });
  return { valid: errors.length === 0, events: events.length, csvRows: rows.length, errors };
}

async function fetchFromLedger(
  url: string,
  tenant: string,
  headers: Record<string, string>,
): Promise<{ csv: string; events: ExportedEvent[] }> {
  const base = url.replace(/\/+$/, '');
  const csv = await (await fetch(`${base}/export?tenant_id=${encodeURIComponent(tenant)}`, { headers })).text();
  const events: ExportedEvent[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = (await (
      await fetch(`${base}/events?tenant_id=${encodeURIComponent(tenant)}&limit=1000&offset=${offset}`, { headers })
    ).json()) as { events: ExportedEvent[]; total: number };
    events.push(...page.events);
    if (page.events.length < 1000) break;
  }
  return { csv, events };
}

function arg(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

export async function run(args: string[]): Promise<void> {
  let csv: string;
  let events: ExportedEvent[];
  const url = arg(args, 'url');
  if (url) {
    const tenant = arg(args, 'tenant');
    if (!tenant) throw new Error('--tenant is required with --url');
    const token = arg(args, 'token') ?? process.env.LEDGER_TOKEN;
    ({ csv, events } = await fetchFromLedger(url, tenant, token ? { authorization: `Bearer ${token}` } : {}));
  } else {
    const csvPath = arg(args, 'csv');
    const eventsPath = arg(args, 'events');
    if (!csvPath || !eventsPath)
      throw new Error('usage: verify-export (--url URL --tenant T [--token JWT]) | (--csv FILE --events FILE)');
    csv = fs.readFileSync(csvPath, 'utf8');
    const parsed = JSON.parse(fs.readFileSync(eventsPath, 'utf8')) as ExportedEvent[] | { events: ExportedEvent[] };
    events = Array.isArray(parsed) ? parsed : parsed.events;
  }
  const result = verifyExport(csv, events);
  console.log(`${result.valid ? 'VALID' : 'INVALID'}: ${result.events} events, ${result.csvRows} CSV rows`);
  for (const e of result.errors.slice(0, 20)) console.log(`  - ${e}`);
  if (!result.valid) process.exitCode = 1;
}
