// A tenant's own PII patterns (an employee id format, a policy number...). They come from
// configuration, not from this code, so they run under re2js (RE2: linear time whatever the
// pattern, no backreferences or lookaround): a tenant cannot stall redaction with a
// catastrophic-backtracking pattern. Category names are checked so they can be counted and
// logged as plain identifiers.
import { RE2JS } from 're2js';
import type { PiiDetector } from './pii-detectors';

export const MAX_CUSTOM_PATTERN_LENGTH = 500;
const CATEGORY = /^[a-z][a-z0-9_]{0,49}$/;

export interface CustomPattern {
  /** The category the matches are counted under: lower-case letters, digits and `_`. */
  category: string;
  /** RE2 syntax. */
  pattern: string;
  /** Case-insensitive matching. */
  ignoreCase?: boolean;
}

export class CustomPatternError extends Error {}

export function customPatternDetector(spec: CustomPattern): PiiDetector {
  if (!CATEGORY.test(spec.category))
    throw new CustomPatternError(`custom PII category ${JSON.stringify(spec.category)} must match ${CATEGORY.source}`);
  if (
    typeof spec.pattern !== 'string' ||
    spec.pattern.length === 0 ||
    spec.pattern.length > MAX_CUSTOM_PATTERN_LENGTH
  ) {
    throw new CustomPatternError(
      `custom PII pattern for ${spec.category} must be 1-${MAX_CUSTOM_PATTERN_LENGTH} characters`,
    );
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(spec.pattern, spec.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (err) {
    throw new CustomPatternError(`custom PII pattern for ${spec.category} is not valid RE2: ${(err as Error).message}`);
  }
  return {
    category: spec.category,
    find(text, found) {
      const m = re.matcher(text);
      while (m.find()) {
        const start = m.start();
        const end = m.end();
        if (end > start) found(start, end);
      }
    },
  };
}
