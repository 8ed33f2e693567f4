// The JSON text of POST /validate's answer: the same bytes JSON.stringify gives for runJson's
// object, with rule_results written by hand. rule_results is most of the answer (one entry per
// rule: 50 in the bench's pack, ~4 kB of its 4.5), and Node 20's JSON.stringify spent ~100 ns a
// property on it, ~13 us an answer, where writing its entries' four fields here takes ~4 us
// (docs/benchmarks.md, branch val, 2026-11-29). Anything not of the expected shape (an error
// answer through the same route, an entry of another shape) is left to JSON.stringify, so the text
// never differs.
import type { RuleFailure, RuleResult } from '../../platform/rule-engine';
import type { runJson } from './index';

type RunAnswer = ReturnType<typeof runJson>;

// The fields entries and failures are written from, in the engine's order. Typed so that a
// field added to RuleResult or RuleFailure fails to compile here until it is written too.
const ENTRY_FIELDS: Record<keyof RuleResult, true> = { severity: true, passed: true, evaluated: true, failed: true };
const FAILURE_FIELDS: Record<keyof RuleFailure, true> = {
  rule_id: true,
  severity: true,
  field: true,
  message: true,
  row: true,
};
void ENTRY_FIELDS;
void FAILURE_FIELDS;

// An entry's text up to its `passed` value, by severity (the only values the engine writes).
const ENTRY_HEAD: Record<string, string> = {
  FATAL: '{"severity":"FATAL","passed":',
  WARNING: '{"severity":"WARNING","passed":',
  INFO: '{"severity":"INFO","passed":',
};

// What JSON.stringify escapes in a string: quote, backslash, control characters, lone surrogates
// (paired ones match too and simply take the slow path).
// eslint-disable-next-line no-control-regex -- control characters are exactly what must be escaped
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A string as JSON: rule ids are plain text, so the check is usually all there is to it. */
const quote = (s: string): string => (NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`);

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n);

/** rule_results as JSON.stringify writes it, or undefined when an entry is not the engine's shape. */
function ruleResultsJson(results: Record<string, RuleResult>): string | undefined {
  // The engine's map has a null prototype: for...in then visits exactly its own keys, in the
  // order JSON.stringify writes them.
  if (typeof results !== 'object' || results === null || Object.getPrototypeOf(results) !== null) return undefined;
  let text = '';
  for (const id in results) {
    const r = results[id]!;
    const head = ENTRY_HEAD[r.severity];
    if (head === undefined || typeof r.passed !== 'boolean' || !isCount(r.evaluated) || !isCount(r.failed))
      return undefined;
    if (Object.getPrototypeOf(r) !== Object.prototype) return undefined;
    // String(n) is JSON's spelling of a finite number.
    text += `${text.length === 0 ? '' : ','}${quote(id)}:${head}${r.passed},"evaluated":${r.evaluated},"failed":${r.failed}}`;
  }
  return `{${text}}`;
}

/** errors or warnings as JSON.stringify writes them, or undefined when one is not the engine's shape. */
function failuresJson(list: readonly RuleFailure[]): string | undefined {
  let text = '';
  for (let i = 0; i < list.length; i++) {
    const f = list[i]!;
    if (typeof f !== 'object' || f === null || Object.getPrototypeOf(f) !== Object.prototype) return undefined;
    const { rule_id, severity, field, message, row } = f;
    if (typeof rule_id !== 'string' || typeof field !== 'string' || typeof message !== 'string') return undefined;
    if (ENTRY_HEAD[severity] === undefined || (row !== undefined && !isCount(row))) return undefined;
    text +=
      `${i === 0 ? '' : ','}{"rule_id":${quote(rule_id)},"severity":"${severity}","field":${quote(field)},` +
      `"message":${quote(message)}${row === undefined ? '' : `,"row":${row}`}}`;
  }
  return `[${text}]`;
}

const RUN_KEYS = [
  'result',
  'correlation_id',
  'execution_time_ms',
  'rule_pack_version',
  'rule_pack_id',
  'pack_source',
  'pack_sha256',
  'input_sha256',
];
const RESULT_KEYS = ['valid', 'errors', 'warnings', 'rule_results', 'metadata'];

/** Whether `o`'s own keys are exactly `keys`, in that order. */
function keysAre(o: object, keys: readonly string[]): boolean {
  const own = Object.keys(o);
  if (own.length !== keys.length) return false;
  for (let i = 0; i < keys.length; i++) if (own[i] !== keys[i]) return false;
  return true;
}

function answerJson(a: RunAnswer): string | undefined {
  const r = a.result;
  if (!keysAre(a, RUN_KEYS) || typeof r !== 'object' || r === null || !keysAre(r, RESULT_KEYS)) return undefined;
  if (typeof r.valid !== 'boolean' || !Array.isArray(r.errors) || !Array.isArray(r.warnings)) return undefined;
  if (typeof r.metadata !== 'object' || r.metadata === null) return undefined;
  const errors = failuresJson(r.errors);
  const warnings = failuresJson(r.warnings);
  const rules = ruleResultsJson(r.rule_results);
  if (errors === undefined || warnings === undefined || rules === undefined) return undefined;
  // The rest is small, and each part keeps JSON.stringify's own rules (an undefined field: dropped).
  const rest = JSON.stringify({
    correlation_id: a.correlation_id,
    execution_time_ms: a.execution_time_ms,
    rule_pack_version: a.rule_pack_version,
    rule_pack_id: a.rule_pack_id,
    pack_source: a.pack_source,
    pack_sha256: a.pack_sha256,
    input_sha256: a.input_sha256,
  });
  return (
    `{"result":{"valid":${r.valid},"errors":${errors},"warnings":${warnings},` +
    `"rule_results":${rules},"metadata":${JSON.stringify(r.metadata)}},${rest.slice(1)}`
  );
}

/** JSON.stringify(data), faster for a run's answer (runJson's object). */
export function validateAnswerJson(data: unknown): string {
  const fast = typeof data === 'object' && data !== null ? answerJson(data as RunAnswer) : undefined;
  return fast ?? JSON.stringify(data);
}
