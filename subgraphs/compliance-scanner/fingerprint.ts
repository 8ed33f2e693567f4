// A finding's fingerprint: the same problem at the same place keeps it across scans, edits above
// it and re-indentation. It hashes the rule, the target, the file (or settings key) and the matched
// content with its whitespace collapsed, plus the occurrence number of that content in the file
// (two identical lines are two findings), never the line number.
import { createHash } from 'node:crypto';

export function normaliseContent(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function fingerprintOf(input: {
  ruleId: string;
  targetId: string;
  path: string;
  content: string;
  occurrence: number;
}): string {
  return createHash('sha256')
    .update(
      [input.ruleId, input.targetId, input.path, normaliseContent(input.content), String(input.occurrence)].join('\0'),
    )
    .digest('hex');
}
