// SQL transforms (issue 33): one SELECT over the pack's declared inputs only. The inputs reach
// the statement as bound parameters (one jsonb array each, exposed as a relation `(key, data)`
// named after the input), never as text spliced into SQL, and the statement runs
//   - in a READ ONLY transaction,
//   - as the role `dataflow_sandbox`, which holds no privilege on any table (so another tenant's
//     rows, or any platform table, are "permission denied"; the service writes the outputs itself),
//   - wrapped as a subquery (a data-modifying WITH is refused there by PostgreSQL),
//   - with `statement_timeout` (PostgreSQL; PGlite runs in this thread and cannot interrupt a
//     statement: docs/dataflow.md says what holds there instead).
import type { SqlExecutor } from '../../platform/db/sql';
import { InputError } from '../../platform/errors/domain-errors';
import type { StagedRecord } from './dataflow.types';

export const SANDBOX_ROLE = 'dataflow_sandbox';

/** Creates the sandbox role once per cluster (roles are cluster-wide; concurrent creators race harmlessly). */
export async function ensureSandboxRole(sql: SqlExecutor): Promise<void> {
  await sql.exec(
    `DO $$ BEGIN CREATE ROLE ${SANDBOX_ROLE} NOLOGIN; ` +
      `EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;`,
  );
}

const IDENT = /^[a-z][a-z0-9_]{0,62}$/;

export interface SqlTransformInput {
  sql: string;
  params: readonly (string | number | boolean | null)[];
  inputs: Record<string, StagedRecord[]>;
  timeoutMs: number;
}

/** The statement's rows as staged records (`key` text and `data` jsonb columns required). */
export async function runSqlTransform(
  db: SqlExecutor,
  input: SqlTransformInput,
  loc: (string | number)[],
): Promise<StagedRecord[]> {
  const names = Object.keys(input.inputs);
  for (const n of names) if (!IDENT.test(n)) throw InputError.of(loc, `Input name '${n}' is not an identifier`);
  const ctes = names.map(
    (n, i) => `"${n}" AS (SELECT e->>'key' AS key, e->'data' AS data FROM jsonb_array_elements($${i + 1}::jsonb) AS e)`,
  );
  const offset = names.length;
  // The pack's own parameters follow the inputs': its $1 is renumbered to $<inputs+1>.
  const body = input.sql.replace(/\$(\d+)/g, (_m, d: string) => `$${Number(d) + offset}`);
  const text = `${ctes.length ? `WITH ${ctes.join(', ')} ` : ''}SELECT t.key::text AS key, t.data::jsonb AS data FROM (${body}) AS t`;
  const params = [...names.map((n) => JSON.stringify(input.inputs[n])), ...input.params];
  const timeout = Math.max(1, Math.floor(input.timeoutMs));
  try {
    return await db.transaction(async (tx) => {
      await tx.query('SET TRANSACTION READ ONLY');
      await tx.query(`SET LOCAL ROLE ${SANDBOX_ROLE}`);
      await tx.query(`SET LOCAL statement_timeout = ${timeout}`);
      const { rows } = await tx.query<{ key: string | null; data: unknown }>(text, params);
      return rows.map((r, i) => {
        if (r.key === null || typeof r.data !== 'object' || r.data === null || Array.isArray(r.data))
          throw InputError.of(loc, `Row ${i} has no key or its data is not a JSON object`, 'sql_output');
        return { key: r.key, data: r.data as Record<string, unknown> };
      });
    });
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw InputError.of(loc, sqlProblem(err as Error & { code?: string }, timeout), 'sql_refused');
  }
}

/** What the pack author is told: the database's refusal, named (never a 500). */
function sqlProblem(err: Error & { code?: string }, timeoutMs: number): string {
  if (err.code === '57014') return `The statement ran longer than ${timeoutMs} ms and was cancelled`;
  if (err.code === '42501') return `The statement may read only its declared inputs: ${err.message}`;
  if (err.code === '25006') return `The statement may not write: ${err.message}`;
  return `The statement failed: ${err.message}`;
}
