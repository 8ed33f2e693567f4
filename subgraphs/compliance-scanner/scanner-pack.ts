// Checks a submitted scanner pack (platform/contracts/scanner-pack.schema.ts) and compiles its
// rules: CEL within the cost bound, patterns as regular expressions, each rule's input able to
// take what it names. Problems are InputErrors naming the path inside the pack.
import { TypeCompiler } from '@sinclair/typebox/compiler';
import picomatch from 'picomatch';
import {
  ScannerPackSchema,
  type ScannerPackDocument,
  type ScannerRule,
} from '../../platform/contracts/scanner-pack.schema';
import { InputError } from '../../platform/errors/domain-errors';
import { CelRuleError, compileCel, type CompiledCel } from './cel-rules';
import { DEFAULT_GLOBS } from './file-inputs';

export interface CompiledRule {
  rule: ScannerRule;
  cel?: CompiledCel;
  pattern?: RegExp;
  files: (path: string) => boolean;
  globs: string[];
}

export interface CompiledPack {
  document: ScannerPackDocument;
  rules: CompiledRule[];
}

const checker = TypeCompiler.Compile(ScannerPackSchema);

function schemaProblem(pack: unknown): InputError | null {
  if (checker.Check(pack)) return null;
  const first = checker.Errors(pack).First();
  if (!first) return null;
  const path = first.path
    .split('/')
    .slice(1)
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p.replace(/~1/g, '/').replace(/~0/g, '~')));
  return InputError.of(['pack', ...path], first.message);
}

export function compilePack(pack: unknown): CompiledPack {
  const problem = schemaProblem(pack);
  if (problem) throw problem;
  const document = pack as ScannerPackDocument;
  const seen = new Set<string>();
  const rules = document.rules.map((rule, i): CompiledRule => {
    const at = (field: string) => ['pack', 'rules', i, field];
    if (seen.has(rule.id)) throw InputError.of(at('id'), `Duplicate rule id '${rule.id}'`);
    seen.add(rule.id);
    const globs = rule.files ?? DEFAULT_GLOBS[rule.input];
    const compiled: CompiledRule = { rule, globs, files: picomatch(globs, { dot: true }) };
    if (rule.input === 'secrets') {
      if (rule.cel || rule.pattern) throw InputError.of(at('input'), 'A secrets rule takes neither cel nor pattern');
      return compiled;
    }
    if (rule.input === 'pii' || rule.input === 'retention') {
      if (rule.cel || rule.pattern)
        throw InputError.of(at('input'), `A ${rule.input} rule takes neither cel nor pattern`);
      if (rule.files) throw InputError.of(at('files'), `A ${rule.input} rule reads no files`);
      return compiled;
    }
    if ((rule.input === 'settings' || rule.input === 'config') && rule.files)
      throw InputError.of(at('files'), `A ${rule.input} rule reads no files`);
    if (rule.pattern !== undefined) {
      if (rule.input !== 'lines') throw InputError.of(at('pattern'), 'Only a lines rule may give a pattern');
      if (rule.cel !== undefined) throw InputError.of(at('pattern'), 'Give cel or pattern, not both');
      try {
        compiled.pattern = new RegExp(rule.pattern);
      } catch (err) {
        throw InputError.of(at('pattern'), `Not a valid regular expression: ${(err as Error).message}`);
      }
      return compiled;
    }
    if (rule.cel === undefined) throw InputError.of(at('cel'), 'Field required', 'missing');
    try {
      compiled.cel = compileCel(rule.cel);
    } catch (err) {
      if (err instanceof CelRuleError) throw InputError.of(at('cel'), err.message);
      throw err;
    }
    return compiled;
  });
  return { document, rules };
}
