// `matches` patterns run under re2js, an RE2 implementation: matching time is linear in the text
// whatever the pattern, so a pack cannot ship a catastrophic-backtracking regex ((a+)+$ and the
// like) to stall the validation service. RE2 syntax has no backreferences and no lookaround;
// such patterns are refused at compile time with RE2's own reason, and so is any pattern longer
// than the limit. The syntax is RE2's (Go's regexp): \d \w \s, classes, {n,m} up to 1000,
// (?i) and the like; flags i, m, s set case-insensitive, multi-line and dot-matches-newline.
import { RE2JS } from 're2js';

const FLAG_BITS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL };

export class PatternError extends Error {}

export function compilePattern(pattern: string, flags: string | undefined, maxLength: number): RE2JS {
  if (pattern.length > maxLength) throw new PatternError(`pattern is longer than ${maxLength} characters`);
  let bits = 0;
  for (const f of flags ?? '') {
    const bit = FLAG_BITS[f];
    if (bit === undefined) throw new PatternError(`unknown flag '${f}' (use i, m, s)`);
    bits |= bit;
  }
  try {
    // No LOOKBEHINDS bit: lookbehind stays refused, as all lookaround is.
    return RE2JS.compile(pattern, bits);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new PatternError(`pattern is not supported by the linear-time (RE2) engine: ${reason}`);
  }
}
