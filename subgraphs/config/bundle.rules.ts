// A bundle's identity and its input limits: SHA-256 of the RFC 8785 canonical JSON (the
// `canonicalize` library), a size and nesting bound checked before anything is hashed or stored,
// and the diff between two versions as RFC 6902 operations (add, remove, replace).
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { InputError } from '../../platform/errors/domain-errors';
import { pointerToken, type JsonObject } from './merge.rules';
import { MAX_BUNDLE_BYTES, MAX_BUNDLE_DEPTH } from './config.types';

/** Throws an InputError naming `field` when the value nests deeper than MAX_BUNDLE_DEPTH. Iterative: a 10,000-level value cannot overflow the stack. */
export function assertDepth(value: unknown, field: (string | number)[]): void {
  const stack: { v: unknown; d: number }[] = [{ v: value, d: 0 }];
  while (stack.length > 0) {
    const { v, d } = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d >= MAX_BUNDLE_DEPTH)
      throw InputError.of(field, `Bundle nests deeper than ${MAX_BUNDLE_DEPTH} levels`, 'value_error.depth');
    for (const child of Object.values(v)) stack.push({ v: child, d: d + 1 });
  }
}

/** The canonical text, bounded in size. */
export function canonicalText(content: JsonObject, field: (string | number)[]): string {
  assertDepth(content, field);
  const text = canonicalize(content);
  if (text === undefined) throw InputError.of(field, 'Bundle content is not JSON');
  if (Buffer.byteLength(text, 'utf8') > MAX_BUNDLE_BYTES)
    throw InputError.of(field, `Bundle exceeds ${MAX_BUNDLE_BYTES} bytes of canonical JSON`, 'value_error.size');
  return text;
}

export const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

export interface DiffOp {
  op: 'add' | 'remove' | 'replace';
  path: string;
  value?: unknown;
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** RFC 6902 operations that turn `from` into `to` (objects walked key by key, lists compared whole). */
export function diff(from: unknown, to: unknown, at = ''): DiffOp[] {
  if (isObject(from) && isObject(to)) {
    const ops: DiffOp[] = [];
    for (const key of Object.keys(from).sort())
      if (!(key in to)) ops.push({ op: 'remove', path: `${at}/${pointerToken(key)}` });
    for (const key of Object.keys(to).sort()) {
      const path = `${at}/${pointerToken(key)}`;
      if (!(key in from)) ops.push({ op: 'add', path, value: to[key] });
      else ops.push(...diff(from[key], to[key], path));
    }
    return ops;
  }
  return canonicalize(from) === canonicalize(to) ? [] : [{ op: 'replace', path: at, value: to }];
}
