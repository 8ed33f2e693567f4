// Runs a compiled pack over a target's inputs and returns located matches with fingerprints:
// pure (no database, no disk), so the service, the tests and the benchmark run the same code.
// A rule that fails on a file (a CEL error on a value it did not expect, a file that does not
// parse) gives no finding there and is counted in `errors`, so a report says what was not judged.
import type { PiiSighting } from './data-asset-pii';
import type { RetentionOverdue } from './data-asset-retention';
import type { CompiledPack, CompiledRule } from './scanner-pack';
import {
  dockerfile,
  lines,
  lineWindows,
  packageJson,
  UnparsableFile,
  yamlDocuments,
  type Located,
} from './file-inputs';
import { findSecrets } from './secret-patterns';
import { capped, MAX_LIST } from './cel-rules';
import { fingerprintOf, normaliseContent } from './fingerprint';
import type { RepositoryFile } from './repository-reader';
import type { Settings } from './settings-input';

export interface Match {
  ruleId: string;
  /** A repository path, or `settings` for the configuration target. */
  path: string;
  /** Null when the rule judged the file (or the settings) as a whole. */
  line: number | null;
  /** A settings key, a secret's kind...: what the location names besides the line. */
  detail: string | null;
  fingerprint: string;
  /** The line carries `scanner:ignore <rule id>` (or the line above does). */
  inlineSkip: boolean;
}

export interface RuleError {
  ruleId: string;
  path: string;
  message: string;
}

export interface EngineResult {
  matches: Match[];
  errors: RuleError[];
  filesScanned: number;
}

export type ScanInput =
  | { kind: 'repository'; files: readonly RepositoryFile[] }
  | { kind: 'configuration'; settings: Settings }
  /** The config service's effective configuration: `{ <namespace>: content }`. */
  | { kind: 'config'; config: Record<string, unknown> }
  /** A data asset's sample: where unmasked PII was seen (never the values). */
  | {
      kind: 'data_asset';
      asset: string;
      sightings: readonly PiiSighting[];
      /** The assets kept past the tenant's retention policy (absent: not checked). */
      overdue?: readonly RetentionOverdue[];
    };

const INLINE_SKIP = /scanner:ignore(?:\s+([A-Za-z0-9._:,-]+))?/;

/** Whether the rule is waived by a comment on this line or the one above. */
function skippedInline(fileLines: readonly Located[] | undefined, line: number | null, ruleId: string): boolean {
  if (!fileLines || line === null) return false;
  for (const l of [line, line - 1]) {
    const m = fileLines[l - 1] && INLINE_SKIP.exec(fileLines[l - 1]!.text);
    if (m && (!m[1] || m[1].split(',').includes(ruleId))) return true;
  }
  return false;
}

/** A CEL result as located matches: true is the whole file; a list is one match per element. */
function located(result: unknown): (Located & { detail: string | null })[] {
  if (result === true) return [{ line: 0, text: '', detail: null }];
  if (!Array.isArray(result)) return [];
  return result.slice(0, 1_000).map((item) => {
    if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
      const rec = item as Record<string, unknown>;
      const line = typeof rec.line === 'bigint' ? Number(rec.line) : typeof rec.line === 'number' ? rec.line : 0;
      const text =
        typeof rec.text === 'string'
          ? rec.text
          : JSON.stringify(item, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
      return { line, text, detail: typeof rec.key === 'string' ? rec.key : null };
    }
    const text = String(item);
    return { line: 0, text, detail: text.slice(0, 200) };
  });
}

class FileView {
  private cache = new Map<string, unknown>();
  constructor(readonly file: RepositoryFile) {}
  get lines(): Located[] {
    return this.memo('lines', () => lines(this.file.text));
  }
  /** What `file` is for a CEL rule: one parsed value, or several windows of lines. */
  parsed(input: CompiledRule['rule']['input']): unknown[] {
    // Its own key: `lines` (the located lines) and the windows a CEL `lines` rule reads differ.
    return this.memo(`parsed:${input}`, () => {
      if (input === 'dockerfile') return [dockerfile(this.file.text)];
      if (input === 'yaml') return [yamlDocuments(this.file.text)];
      if (input === 'package_json') return [packageJson(this.file.text)];
      return lineWindows(this.lines);
    });
  }
  private memo<T>(key: string, make: () => T): T {
    if (!this.cache.has(key)) {
      try {
        this.cache.set(key, make());
      } catch (err) {
        this.cache.set(key, err instanceof Error ? err : new Error(String(err)));
      }
    }
    const v = this.cache.get(key);
    if (v instanceof Error) throw v;
    return v as T;
  }
}

export function runPack(pack: CompiledPack, targetId: string, input: ScanInput): EngineResult {
  const matches: Match[] = [];
  const errors: RuleError[] = [];
  const occurrences = new Map<string, number>();
  const add = (rule: CompiledRule, path: string, hit: Located & { detail: string | null }, fileLines?: Located[]) => {
    const key = [rule.rule.id, path, normaliseContent(hit.text)].join('\0');
    const occurrence = occurrences.get(key) ?? 0;
    occurrences.set(key, occurrence + 1);
    const line = hit.line > 0 ? hit.line : null;
    matches.push({
      ruleId: rule.rule.id,
      path,
      line,
      detail: hit.detail,
      fingerprint: fingerprintOf({ ruleId: rule.rule.id, targetId, path, content: hit.text, occurrence }),
      inlineSkip: skippedInline(fileLines, line, rule.rule.id),
    });
  };

  if (input.kind === 'configuration') {
    for (const rule of pack.rules.filter((r) => r.rule.input === 'settings' && r.cel)) {
      try {
        for (const hit of located(rule.cel!({ file: input.settings, settings: input.settings, path: 'settings' })))
          add(rule, 'settings', hit);
      } catch (err) {
        errors.push({ ruleId: rule.rule.id, path: 'settings', message: (err as Error).message.split('\n')[0]! });
      }
    }
    return { matches, errors, filesScanned: 0 };
  }

  if (input.kind === 'config') {
    // Each namespace is judged on its own, at `config/<namespace>`: `file` is its content.
    const namespaces = Object.keys(input.config).sort().slice(0, MAX_LIST);
    for (const rule of pack.rules.filter((r) => r.rule.input === 'config' && r.cel)) {
      for (const namespace of namespaces) {
        const at = `config/${namespace}`;
        try {
          const file = capped(input.config[namespace]);
          for (const hit of located(rule.cel!({ file, namespace, path: at }))) add(rule, at, hit);
        } catch (err) {
          errors.push({ ruleId: rule.rule.id, path: at, message: (err as Error).message.split('\n')[0]! });
        }
      }
    }
    return { matches, errors, filesScanned: 0 };
  }

  if (input.kind === 'data_asset') {
    // One finding per sighting, at the record's own location (a retrieval chunk) or
    // `<asset>/records/<offset>`; its text (what the fingerprint
    // hashes) is the field, category and span, so it never holds the value.
    for (const rule of pack.rules.filter((r) => r.rule.input === 'pii'))
      for (const s of input.sightings) {
        const text = `${s.field} ${s.category} ${s.start}-${s.end}`;
        add(rule, s.at ?? `${input.asset}/records/${s.offset}`, { line: 0, text, detail: `${s.field}:${s.category}` });
      }
    // One finding per overdue asset and policy: the fingerprint hashes the record type and the
    // days kept, so a changed policy is a new finding (and the old one fixed), the age is not
    // hashed (it grows every day).
    for (const rule of pack.rules.filter((r) => r.rule.input === 'retention'))
      for (const o of input.overdue ?? [])
        add(rule, o.at, {
          line: 0,
          text: `${o.recordType} retain_days=${o.retainDays}`,
          detail: `${o.recordType}:${o.retainDays}d`,
        });
    return { matches, errors, filesScanned: 0 };
  }

  const fileRules = pack.rules.filter(
    (r) =>
      r.rule.input !== 'settings' &&
      r.rule.input !== 'config' &&
      r.rule.input !== 'pii' &&
      r.rule.input !== 'retention',
  );
  for (const file of input.files) {
    const view = new FileView(file);
    for (const rule of fileRules) {
      if (!rule.files(file.path)) continue;
      try {
        const { input: kind } = rule.rule;
        if (kind === 'secrets') {
          for (const s of findSecrets(view.lines)) add(rule, file.path, { ...s, detail: s.kind }, view.lines);
        } else if (rule.pattern) {
          for (const l of view.lines)
            if (l.text.length <= 4096 && rule.pattern.test(l.text))
              add(rule, file.path, { ...l, detail: null }, view.lines);
        } else {
          for (const parsed of view.parsed(kind))
            for (const hit of located(rule.cel!({ file: parsed, path: file.path })))
              add(rule, file.path, hit, view.lines);
        }
      } catch (err) {
        const message = err instanceof UnparsableFile ? `file does not parse: ${err.message}` : (err as Error).message;
        errors.push({ ruleId: rule.rule.id, path: file.path, message: message.split('\n')[0]!.slice(0, 500) });
      }
    }
  }
  return { matches, errors, filesScanned: input.files.length };
}
