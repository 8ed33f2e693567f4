// A plain CSV batch's rows written by a function generated for the batch from the pipeline's
// mapping (issue 32: the general steps, a record object a row, the mapping's closures,
// JSON.stringify, the checksums' walk over the record, cost 6-8 µs a row where 0.5x COPY needs
// about 2). The function reads a record's fields straight from the piece, maps them, checks the
// result against the target schema, and writes its COPY line and checksum values, with no
// intermediate record. It is generated from fast-mapping.ts's subset of JSONata's syntax tree
// only; nothing of the pipeline's text becomes code: target field names and string constants enter
// as JSON string literals (names checked as identifiers), functions by a name found in FUNCTIONS,
// source fields by their column's index. It answers what the general steps answer (the same
// FUNCTIONS, the same Ajv check, JSON.stringify's text), or null for a record it cannot take (a
// value outside the subset, a record the schema refuses): that record then goes the general way.
import type jsonata from 'jsonata';
import { CopyDeclined } from './csv-copy-source';
import { decimal, FALLBACK, FUNCTIONS, only, type Node } from './fast-mapping';

export interface RowState {
  /** Where the next record of the piece starts. */
  pos: number;
  /** The next record's offset in the batch. */
  offset: number;
  /** COPY lines not yet sent. */
  text: string;
  /** Records in `text`. */
  count: number;
  /** The fields of a record the function declined (its offset is `offset`): the caller takes it, then clears this. */
  pending: string[] | null;
}

export interface RowWriter {
  /** One record's COPY line (`offset\tjson\n`), its values given to the checksums; null: the general way takes it. */
  line(offset: number, clean: boolean, fields: string[]): string | null;
  /**
   * Up to `max` records of a piece without quotes from `st.pos`, appended to `st.text`; stops
   * early at a record it declines (`st.pending`). `clean`: the piece has no character JSON escapes.
   */
  rows(st: RowState, piece: string, clean: boolean, max: number): void;
}

/** A character JSON.stringify escapes (or a surrogate, which it may), a quote or a backslash; a line feed is a record end. */
// Written as the characters it does not match: irregexp scans that class about twice as fast.
export const UNCLEAN = /[^\n\u0020\u0021\u0023-\u005b\u005d-\ud7ff\ue000-\uffff]/;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A string's JSON text as COPY's text format takes it (JSON.stringify leaves no raw tab or line end; backslashes doubled). */
function escaped(s: string): string {
  const json = JSON.stringify(s);
  return json.includes('\\') ? json.replace(/\\/g, '\\\\') : json;
}

function decline(why: string): never {
  throw new CopyDeclined(why);
}

/**
 * The batch's function, or null when the mapping cannot be generated (an expression outside the
 * subset, a source field the file lacks, a target name that is not an identifier).
 * `lane(name)`: where the target column's checksum values go, in offset order (column-checksums.ts).
 */
export function compileRowWriter(
  mapping: [name: string, expression: jsonata.Expression][],
  valid: (record: Record<string, unknown>) => boolean,
  columns: string[],
  delimiter: string,
  lane: (name: string) => string[],
): RowWriter | null {
  if (columns.length === 0 || delimiter.length !== 1 || delimiter === '\n') return null;
  const body: string[] = [];
  let temps = 0;
  let constantsClean = true;
  /**
   * Statements computing the node into a new temporary (the line answering null on FALLBACK): its
   * name and its type, known here (every source field is a string, each function's answer for a
   * string has one type), or null.
   */
  const gen = (node: Node): { t: string; type: 'string' | 'number' } | null => {
    const t = `t${temps++}`;
    if (node.type === 'string' && typeof node.value === 'string' && only(node, 'type', 'value')) {
      // (A line feed is clean in a piece, where it only ends records; not in a value.)
      if (UNCLEAN.test(node.value) || node.value.includes('\n')) constantsClean = false;
      body.push(`const ${t} = ${JSON.stringify(node.value)};`);
      return { t, type: 'string' };
    }
    if (node.type === 'path' && node.steps?.length === 1 && only(node, 'type', 'steps')) {
      const step = node.steps[0] as Node;
      if (step.type !== 'name' || typeof step.value !== 'string' || !only(step, 'type', 'value')) return null;
      const index = columns.indexOf(step.value);
      if (index < 0) return null;
      body.push(`const ${t} = a${index};`);
      return { t, type: 'string' };
    }
    if (
      node.type === 'function' &&
      node.procedure?.type === 'variable' &&
      only(node.procedure, 'type', 'value') &&
      node.arguments?.length === 1 &&
      only(node, 'type', 'value', 'arguments', 'procedure')
    ) {
      const name = node.procedure.value;
      if (!Object.prototype.hasOwnProperty.call(FUNCTIONS, name)) return null;
      const arg = gen(node.arguments[0] as Node);
      // FUNCTIONS other than $number refuse a number; $number of a number is itself.
      if (!arg || (arg.type === 'number' && name !== 'number')) return null;
      if (name === 'number') {
        body.push(
          arg.type === 'number'
            ? `const ${t} = ${arg.t};`
            : `const ${t} = decimal(${arg.t}); if (${t} === FB) return null;`,
        );
        return { t, type: 'number' };
      }
      body.push(`const ${t} = F[${JSON.stringify(name)}](${arg.t});`);
      return { t, type: 'string' };
    }
    if (
      node.type === 'binary' &&
      node.value === '&' &&
      node.lhs &&
      node.rhs &&
      only(node, 'type', 'value', 'lhs', 'rhs')
    ) {
      const l = gen(node.lhs);
      const r = l && gen(node.rhs);
      // A number operand is JSONata's to cast.
      if (!l || !r || l.type !== 'string' || r.type !== 'string') return null;
      body.push(`const ${t} = ${l.t} + ${r.t};`);
      return { t, type: 'string' };
    }
    return null;
  };
  const values: { name: string; t: string; type: 'string' | 'number' }[] = [];
  for (const [name, expression] of mapping) {
    if (!IDENTIFIER.test(name) || name === '__proto__') return null;
    const v = gen(expression.ast() as Node);
    if (!v) return null;
    values.push({ name, ...v });
  }
  if (values.length === 0) return null;
  const args = columns.map((_, i) => `a${i}`).join(', ');
  const lines: string[] = [];
  // The record the general steps would build (the mapping's order), checked as they check it.
  lines.push(`const o = { ${values.map(({ name, t }) => `${JSON.stringify(name)}: ${t}`).join(', ')} };`);
  lines.push('if (!valid(o)) return null;');
  // A number's JSON text (and checksum text) is its String(); a string's, in a clean piece, itself in quotes.
  values.forEach(({ t, type }, k) => {
    if (type === 'number') lines.push(`const n${k} = '' + ${t};`);
    lines.push(`L${k}.push(${type === 'number' ? `n${k}` : t});`);
  });
  const json = (clean: boolean) =>
    values
      .map(({ name, t, type }, k) => {
        const key = `${k === 0 ? '{' : ','}${JSON.stringify(name)}:`;
        if (type === 'number') return `${JSON.stringify(key)} + n${k}`;
        return clean ? `${JSON.stringify(`${key}"`)} + ${t} + '"'` : `${JSON.stringify(key)} + esc(${t})`;
      })
      .join(' + ');
  if (constantsClean) lines.push(`if (clean) return offset + '\\t' + ${json(true)} + '}\\n';`);
  lines.push(`return offset + '\\t' + ${json(false)} + '}\\n';`);
  const D = JSON.stringify(delimiter);
  const last = columns.length - 1;
  const split = columns
    .slice(0, last)
    .map(
      (_, i) =>
        `q = s.indexOf(${D}, pos); if (q < 0 || q > end) decline('a record with another number of fields'); const a${i} = s.slice(pos, q); pos = q + 1;`,
    )
    .join('\n');
  const source = `"use strict";
function line(offset, clean, ${args}) {
${body.join('\n')}
${lines.join('\n')}
}
function rows(st, s, clean, max) {
  let pos = st.pos, offset = st.offset, text = st.text, n = 0, q;
  const len = s.length;
  while (pos < len && n < max) {
    const end = s.indexOf('\\n', pos);
    if (end < 0) decline('a record without its line end');
    ${split}
    q = s.indexOf(${D}, pos); if (q >= 0 && q < end) decline('a record with another number of fields');
    const a${last} = s.slice(pos, end); pos = end + 1;
    const l = line(offset, clean, ${args});
    if (l === null) { st.pending = [${args}]; break; }
    text += l; offset++; n++;
  }
  st.pos = pos; st.offset = offset; st.text = text; st.count += n;
}
return { line: (offset, clean, f) => line(offset, clean, ${columns.map((_, i) => `f[${i}]`).join(', ')}), rows };`;
  const lanes = values.map(({ name }) => lane(name));
  const params = ['F', 'FB', 'decimal', 'valid', 'esc', 'decline', ...lanes.map((_, k) => `L${k}`)];
  // Generated from the syntax tree only (see the header).
  const factory = new Function(...params, source) as (...a: unknown[]) => RowWriter;
  return factory(FUNCTIONS, FALLBACK, decimal, valid, escaped, decline, ...lanes);
}
