// The scanner's engine without a database: the baseline pack over small files and settings,
// fingerprints that survive line shifts, inline skips, and the rule checks at submission.
import baseline from '../../../subgraphs/compliance-scanner/baseline.pack.json';
import { compilePack } from '../../../subgraphs/compliance-scanner/scanner-pack';
import { runPack } from '../../../subgraphs/compliance-scanner/scan-engine';
import { effectiveSettings } from '../../../subgraphs/compliance-scanner/settings-input';
import { InputError } from '../../../platform/errors/domain-errors';

const pack = compilePack(baseline);
const repo = (files: Record<string, string>) => ({
  kind: 'repository' as const,
  files: Object.entries(files).map(([path, text]) => ({ path, text })),
});

describe('scan engine', () => {
  it('finds unpinned images, root containers, ranges, secrets and eval', () => {
    const { matches, errors } = runPack(
      pack,
      't1',
      repo({
        Dockerfile: 'FROM node:latest\nRUN npm ci\n',
        'svc/Dockerfile': 'FROM node:22 AS build\nUSER node\n',
        'package.json': JSON.stringify({ dependencies: { a: '^1.0.0', b: '2.0.0' } }),
        'src/x.ts': `const k = "AKIA${'A'.repeat(16)}";\nconst y = eval(k);\nobj.eval(1);\n`,
      }),
    );
    expect(errors).toEqual([]);
    const found = matches.map((m) => `${m.ruleId} ${m.path}:${m.line ?? '-'}${m.detail ? ' ' + m.detail : ''}`).sort();
    expect(found).toEqual([
      'code.dynamic-eval src/x.ts:2',
      'docker.root-user Dockerfile:-',
      'docker.unpinned-base-image Dockerfile:1',
      'npm.unpinned-dependency package.json:- a',
      'secrets.hardcoded src/x.ts:1 aws_access_key_id',
    ]);
    // A secret's value never reaches a finding.
    expect(JSON.stringify(matches)).not.toContain('AKIA');
  });

  it('runs pattern rules and CEL lines rules over the same file (each sees its own view of the lines)', () => {
    const base = { severity: 'low', description: 'd', remediation: 'r', controls: ['cm-2'], input: 'lines' };
    const both = compilePack({
      metadata: { pack_id: 'p', version: '1.0.0', name: 'p' },
      rules: [
        { ...base, id: 'by-pattern', pattern: 'TODO' },
        { ...base, id: 'by-cel', cel: "file.lines.filter(l, l.text.contains('TODO'))" },
      ],
    });
    for (const order of [both, { ...both, rules: [...both.rules].reverse() }]) {
      const { matches, errors } = runPack(order, 't1', repo({ 'a.ts': 'x\n// TODO\n' }));
      expect(errors).toEqual([]);
      expect(matches.map((m) => `${m.ruleId}:${m.line}`).sort()).toEqual(['by-cel:2', 'by-pattern:2']);
    }
  });

  it("judges each namespace of the config service's configuration, naming keys, never values", () => {
    const { matches, errors } = runPack(pack, 't1', {
      kind: 'config',
      config: {
        gateway: { cors_origins: ['https://console.example', '*'], timeout_ms: 100 },
        billing: { api_key: 'sk-live-123456', db_password: 'secret://env/CONFIG_SECRET_DB', retries: 3 },
        flags: 7,
      },
    });
    expect(errors).toEqual([]);
    expect(matches.map((m) => `${m.ruleId} ${m.path} ${m.detail}`).sort()).toEqual([
      'config.cors-any-origin config/gateway cors_origins',
      'config.plaintext-secret config/billing api_key',
    ]);
    expect(JSON.stringify(matches)).not.toContain('sk-live');
    // No repository or settings rule runs on a configuration, and no config rule on files.
    expect(runPack(pack, 't1', repo({ 'a.yaml': 'cors_origins: "*"\n' })).matches).toEqual([]);
  });

  it('keeps fingerprints when lines shift and tells identical lines apart', () => {
    const before = runPack(pack, 't1', repo({ 'a.ts': 'eval(x)\neval(x)\n' })).matches;
    const after = runPack(pack, 't1', repo({ 'a.ts': '// new header\n\n  eval(x)\neval(x)\n' })).matches;
    expect(before.map((m) => m.line)).toEqual([1, 2]);
    expect(after.map((m) => m.line)).toEqual([3, 4]);
    expect(after.map((m) => m.fingerprint)).toEqual(before.map((m) => m.fingerprint));
    expect(new Set(before.map((m) => m.fingerprint)).size).toBe(2);
    // Another target, another fingerprint.
    expect(runPack(pack, 't2', repo({ 'a.ts': 'eval(x)\n' })).matches[0]!.fingerprint).not.toBe(before[0]!.fingerprint);
  });

  it('marks inline skips on the line or the line above', () => {
    const { matches } = runPack(
      pack,
      't1',
      repo({
        'a.ts':
          'eval(a) // scanner:ignore code.dynamic-eval\n// scanner:ignore\neval(b)\neval(c) // scanner:ignore other.rule\n',
      }),
    );
    expect(matches.map((m) => [m.line, m.inlineSkip])).toEqual([
      [1, true],
      [3, true],
      [4, false],
    ]);
  });

  it('judges the effective settings of a production profile without keeping secrets', () => {
    const settings = effectiveSettings({
      NODE_ENV: 'production',
      GRAPHQL_INTROSPECTION: 'true',
      CORS_ORIGINS: 'https://a.example, *',
      JWT_SECRET_KEY: 'short-secret',
      WORKFLOW_HTTP_ALLOWED_HOSTS: '*',
    });
    expect(settings.JWT_SECRET_KEY_BYTES).toBe('12');
    expect(JSON.stringify(settings)).not.toContain('short-secret');
    const { matches, errors } = runPack(pack, 'cfg', { kind: 'configuration', settings });
    expect(errors).toEqual([]);
    expect(matches.map((m) => m.ruleId).sort()).toEqual([
      'settings.cors-any-origin',
      'settings.introspection-in-production',
      'settings.short-jwt-secret',
      'settings.workflow-any-host',
    ]);
    const safe = effectiveSettings({
      NODE_ENV: 'production',
      JWT_SECRET_KEY: 'x'.repeat(48),
      CORS_ORIGINS: 'https://a',
    });
    expect(runPack(pack, 'cfg', { kind: 'configuration', settings: safe }).matches).toEqual([]);
  });

  it('counts a file that does not parse as an error, not a finding', () => {
    const { matches, errors } = runPack(pack, 't1', repo({ 'deploy/compose.yaml': 'services: [\n' }));
    expect(matches).toEqual([]);
    expect(errors[0]).toMatchObject({ ruleId: 'compose.privileged-service', path: 'deploy/compose.yaml' });
  });

  it('refuses YAML alias bombs instead of expanding them', () => {
    const bomb = [
      'a: &a [x,x,x,x,x,x,x,x,x,x]',
      ...Array.from(
        { length: 9 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`,
      ),
    ].join('\n');
    const { errors } = runPack(pack, 't1', repo({ 'compose.yaml': bomb }));
    expect(errors).toHaveLength(1);
  });
});

describe('pack checks', () => {
  const withRule = (rule: Record<string, unknown>) => ({
    ...baseline,
    rules: [
      { id: 'r', severity: 'low', description: 'd', remediation: 'r', controls: ['cm-2'], input: 'lines', ...rule },
    ],
  });
  const issue = (pack: unknown) => {
    try {
      compilePack(pack);
    } catch (err) {
      if (err instanceof InputError) return err.issues[0];
      throw err;
    }
    return undefined;
  };

  it('refuses a rule whose nested macros could run for too long (cost limit)', () => {
    const i = issue(
      withRule({ cel: 'file.lines.all(a, file.lines.all(b, file.lines.exists(c, a.text == b.text + c.text)))' }),
    );
    expect(i).toMatchObject({ loc: ['pack', 'rules', 0, 'cel'] });
    expect(i!.msg).toMatch(/above the limit/);
  });

  it('accepts one macro over a capped list', () => {
    expect(issue(withRule({ cel: "file.lines.filter(l, l.text.contains('TODO'))" }))).toBeUndefined();
  });

  it('names the path of schema problems, bad CEL and bad patterns', () => {
    expect(issue({ ...baseline, rules: [{ ...baseline.rules[0], severity: 'urgent' }] })!.loc).toEqual([
      'pack',
      'rules',
      0,
      'severity',
    ]);
    expect(issue(withRule({ cel: 'file.lines.(' }))!.loc).toEqual(['pack', 'rules', 0, 'cel']);
    expect(issue(withRule({ pattern: '(' }))!.loc).toEqual(['pack', 'rules', 0, 'pattern']);
    expect(issue(withRule({}))!.loc).toEqual(['pack', 'rules', 0, 'cel']);
  });
});
