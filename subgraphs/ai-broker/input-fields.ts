// Small helpers for reading a caller's fields, shared by the broker's operations.
import { redactText } from '../../platform/redaction';
import type { InputIssue } from '../../platform/errors/domain-errors';

/** A caller's id echoed in an error message: shortened and redacted (an id can be PII too). */
export const echo = (id: string): string => redactText(id.slice(0, 100)).text;

/**
 * An optional string of 1-max characters. A bad one is added to `issues` (not thrown) so that
 * one 422 lists every problem of the request.
 */
export function optionalString(issues: InputIssue[], field: string, v: unknown, max: number): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v.length === 0 || v.length > max) {
    issues.push({ loc: [field], msg: `Input should be a string of 1-${max} characters`, type: 'string_type' });
    return undefined;
  }
  return v;
}
