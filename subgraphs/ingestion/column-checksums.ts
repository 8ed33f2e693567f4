// A batch manifest's per-column checksums, computed as the batch's records are staged instead of
// by reading every staged row back at the end (which cost more than staging them: issue 32's
// bench). Per target column: SHA-256 over the column's values in offset order, joined by '\n',
// each value as text (a string as itself, a JSON null as `null`, anything else its RFC 8785 JSON
// text: for numbers, booleans and strings this is what PostgreSQL's `jsonb_each_text` gives, the
// definition the earlier SQL used). A resumed batch first folds in the rows staged before its
// checkpoint, read back from staging (batch.service.ts), so a crash changes nothing.
import canonicalize from 'canonicalize';
import { createHash, type Hash } from 'node:crypto';

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null) return 'null';
  // A finite number's JSON text is its String() (-0 included); String() is the cheaper call.
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return canonicalize(value) ?? 'null';
}

interface Column {
  hash: Hash;
  /** Values not yet hashed: one update a column a chunk is much cheaper than one a value. */
  pending: string[];
  started: boolean;
}

export class ColumnChecksums {
  private readonly columns = new Map<string, Column>();

  /** A staged record, in offset order. */
  add(record: Record<string, unknown>): void {
    for (const key in record) {
      const value = record[key];
      if (value !== undefined) this.lane(key).push(text(value));
    }
  }

  /**
   * Where a column's values are pushed as text (the generated row writer's way, row-writer.ts;
   * interleaved with add() in offset order). The array stays the same across folds.
   */
  lane(key: string): string[] {
    let column = this.columns.get(key);
    if (!column) this.columns.set(key, (column = { hash: createHash('sha256'), pending: [], started: false }));
    return column.pending;
  }

  /** Hashes the values added so far (call once a chunk, so memory holds a chunk's values at most). */
  fold(): void {
    for (const column of this.columns.values()) {
      if (column.pending.length === 0) continue;
      column.hash.update((column.started ? '\n' : '') + column.pending.join('\n'), 'utf8');
      column.started = true;
      column.pending.length = 0;
    }
  }

  /** Column name -> hex SHA-256, in name order (a lane given no value is no column). */
  digest(): Record<string, string> {
    this.fold();
    return Object.fromEntries(
      [...this.columns.entries()]
        .filter(([, column]) => column.started)
        .map(([key, column]) => [key, column.hash.digest('hex')] as const)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  }
}
