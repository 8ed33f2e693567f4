// The minimal SQL surface the store layers use for hand-written queries (hot paths such as the
// ledger's group commit), implemented for both PGlite and node-postgres. Prisma covers the rest.

export interface SqlResult<Row> {
  rows: Row[];
  rowCount: number;
}

export interface QueryOptions {
  /**
   * PostgreSQL: prepare the statement under this name on each pooled connection, so the server
   * parses and plans it once per connection instead of on every call. Only for a hot statement
   * whose text never changes (the rows travel as parameters); one name, one text. Ignored on PGlite.
   */
  prepareAs?: string;
}

export interface SqlQuery {
  /** One parameterised statement. Column types are the driver's: cast in SQL (e.g. `::text`) where it matters. */
  query<Row = Record<string, unknown>>(
    text: string,
    params?: unknown[],
    options?: QueryOptions,
  ): Promise<SqlResult<Row>>;
  /** Several statements without parameters (migrations). */
  exec(text: string): Promise<void>;
  /**
   * PostgreSQL only: `COPY ... FROM STDIN` fed with `data` (already in the COPY's format; a stream
   * of it is sent as it is produced, with backpressure), on this connection (inside a transaction
   * when called on one). A stream that throws ends the COPY with that error. Absent on PGlite:
   * callers keep an INSERT path. A Buffer is the format's text already encoded as UTF-8.
   */
  copyFrom?(text: string, data: string | AsyncIterable<string | Buffer>): Promise<number>;
}

export interface SqlExecutor extends SqlQuery {
  /** Runs `work` in one transaction on one connection; rolls back when it throws. */
  transaction<T>(work: (tx: SqlQuery) => Promise<T>): Promise<T>;
}
