// What a rule sees of a file, by its `input`: the lines, a Dockerfile's instructions, a YAML
// stream's documents (Kubernetes manifests, compose files), a package.json. Parsing is lenient
// about content (a file that does not parse gives the rule nothing, and the scan says so) and
// strict about size: YAML aliases are capped, so a billion-laughs file is refused, not expanded.
import { parseAllDocuments } from 'yaml';
import type { ScannerRuleInput } from '../../platform/contracts/scanner-pack.schema';
import { capped, MAX_LIST } from './cel-rules';

/** A located piece of a file: what a finding points at. `text` is what its fingerprint hashes. */
export interface Located {
  line: number;
  text: string;
}

export interface DockerInstruction extends Located {
  cmd: string;
  value: string;
}

/** Globs a rule reads when it names none. */
export const DEFAULT_GLOBS: Record<ScannerRuleInput, string[]> = {
  lines: ['**/*'],
  secrets: ['**/*'],
  dockerfile: ['**/Dockerfile', '**/Dockerfile.*', '**/*.dockerfile'],
  yaml: ['**/*.yaml', '**/*.yml'],
  package_json: ['**/package.json'],
  settings: [],
  config: [],
  pii: [],
  retention: [],
};

/** Every line of the file (pattern and secrets rules read them all). */
export function lines(text: string): Located[] {
  return text.split(/\r?\n/).map((t, i) => ({ line: i + 1, text: t }));
}

/** The lines as CEL `lines` rules see them: windows of MAX_LIST lines, each judged on its own. */
export function lineWindows(all: readonly Located[]): { lines: Located[] }[] {
  const windows: { lines: Located[] }[] = [];
  for (let i = 0; i < all.length; i += MAX_LIST) windows.push({ lines: all.slice(i, i + MAX_LIST) });
  return windows;
}

/** Instructions with continuation lines joined; `line` is where each begins. */
export function dockerfile(text: string): { instructions: DockerInstruction[] } {
  const instructions: DockerInstruction[] = [];
  let pending: { line: number; parts: string[] } | null = null;
  lines(text).forEach(({ line, text: raw }) => {
    const t = raw.trim();
    if (pending === null && (t === '' || t.startsWith('#'))) return;
    if (pending === null) pending = { line, parts: [] };
    const continued = t.endsWith('\\');
    pending.parts.push(continued ? t.slice(0, -1).trim() : t);
    if (continued) return;
    const joined = pending.parts.filter((p) => p !== '' && !p.startsWith('#')).join(' ');
    const match = /^(\S+)\s*(.*)$/.exec(joined);
    if (match) {
      const cmd = match[1]!.toUpperCase();
      instructions.push({ line: pending.line, cmd, value: match[2]!, text: `${cmd} ${match[2]!}` });
    }
    pending = null;
  });
  return { instructions: instructions.slice(0, MAX_LIST) };
}

export class UnparsableFile extends Error {}

export function yamlDocuments(text: string): { documents: unknown[] } {
  const documents: unknown[] = [];
  for (const doc of parseAllDocuments(text, { uniqueKeys: false }).slice(0, MAX_LIST)) {
    if (doc.errors.length > 0) throw new UnparsableFile(doc.errors[0]!.message.split('\n')[0]);
    documents.push(capped(doc.toJS({ maxAliasCount: 100 })));
  }
  return { documents };
}

export function packageJson(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    return capped(parsed) as Record<string, unknown>;
  } catch (err) {
    throw new UnparsableFile((err as Error).message);
  }
}
