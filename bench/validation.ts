// `npm run bench -- validation [records] [seconds] [route-seconds]`: the rule engine's throughput,
// then POST /validate's (bench/validation-service.support.ts). A 50-rule pack
// (comparisons, in/not_in, matches, range, starts/ends_with, contains, null checks, value_field,
// `when`, nested any/all/not) runs over generated order records (10,000 by default):
//   - ours: compileRulePack once, runRulePack over all records, repeated for `seconds`;
//   - json-rules-engine 7 on the same rules (translated: range -> all of >=/<=, when -> any of
//     (not when, test), matches/starts_with/ends_with/null checks as custom operators with native
//     RegExp, value_field as a fact reference) over the same records;
// and prints rule evaluations per second (rules x records / time) for both, the ratio, and both
// engines' failure counts on the same records (they should agree: the rules are equivalent).
// Numbers only: nothing here passes or fails on time.
import { Engine, type TopLevelCondition, type NestedCondition } from 'json-rules-engine';
import { compileRulePack, runRulePack } from '../platform/rule-engine';
import { measureValidateRoute } from './validation-service.support';

type Condition = Record<string, unknown> & { operator: string; field?: string; conditions?: Condition[] };
type Rule = Condition & {
  rule_id: string;
  type: 'FATAL' | 'WARNING' | 'INFO';
  field: string;
  error_message: string;
  when?: Condition;
};

function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

// A small deterministic generator (mulberry32), so every run validates the same records.
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function generateRecords(count: number, seed = 42): Record<string, unknown>[] {
  const rnd = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const records: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const amount = Math.round(rnd() * 200_000) / 100;
    const created = 1_700_000_000 + Math.floor(rnd() * 10_000_000);
    records.push({
      id: rnd() < 0.98 ? `ORD-${String(i).padStart(6, '0')}` : `ord${i}`,
      amount,
      discount: Math.round(rnd() * 30_000) / 100,
      currency: pick(['USD', 'EUR', 'GBP', 'JPY', 'XXX']),
      status: pick(['new', 'paid', 'shipped', 'cancelled']),
      email: rnd() < 0.95 ? `user${i}@example.${pick(['com', 'org', 'io'])}` : `user${i}-at-example`,
      country: pick(['US', 'GB', 'DE', 'FR', 'JP', 'BR']),
      created,
      shipped: rnd() < 0.7 ? created + Math.floor(rnd() * 900_000) - 50_000 : null,
      notes: rnd() < 0.5 ? null : 'leave at the door',
      tags: rnd() < 0.3 ? ['priority', 'gift'] : ['standard'],
      customer: {
        age: 12 + Math.floor(rnd() * 80),
        tier: pick(['gold', 'silver', 'bronze', 'none']),
        zip: String(10000 + Math.floor(rnd() * 89999)),
      },
      items: [
        {
          sku: `${pick(['ABC', 'XYZ', 'abc'])}-${1000 + Math.floor(rnd() * 9000)}`,
          qty: 1 + Math.floor(rnd() * 20),
          price: Math.round(rnd() * 50_000) / 100,
        },
      ],
    });
  }
  return records;
}

const SEVERITIES = ['FATAL', 'WARNING', 'INFO'] as const;

/** 50 rules: 17 templates, varied by threshold, until there are 50. */
export function benchPack(ruleCount = 50): { metadata: Record<string, string>; rules: Rule[] } {
  const templates: ((k: number) => Condition)[] = [
    () => ({ field: 'id', operator: 'required' }),
    () => ({ field: 'id', operator: 'matches', value: '^ORD-[0-9]{6}$' }),
    (k) => ({ field: 'amount', operator: 'range', min: 0, max: 1000 + 50 * k }),
    () => ({ field: 'amount', operator: '>', value_field: 'discount' }),
    () => ({ field: 'currency', operator: 'in', value: ['USD', 'EUR', 'GBP', 'JPY'] }),
    () => ({ field: 'status', operator: 'not_in', value: ['cancelled', 'lost'] }),
    () => ({ field: 'email', operator: 'matches', value: '^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$', flags: 'i' }),
    (k) => ({
      field: 'amount',
      operator: 'any',
      conditions: [
        { field: 'customer.tier', operator: '==', value: 'gold' },
        { operator: '<', value: 500 + 10 * k },
      ],
    }),
    (k) => ({
      field: 'customer.age',
      operator: 'all',
      conditions: [
        { operator: '>=', value: 16 + (k % 5) },
        {
          operator: 'any',
          conditions: [
            { field: 'country', operator: 'in', value: ['US', 'GB', 'DE'] },
            { field: 'customer.tier', operator: '!=', value: 'none' },
          ],
        },
      ],
    }),
    () => ({ field: 'items[0].sku', operator: 'starts_with', value: 'ABC' }),
    () => ({ field: 'email', operator: 'ends_with', value: '.com' }),
    () => ({ field: 'tags', operator: 'contains', value: 'priority' }),
    () => ({ field: 'created', operator: 'is_not_null' }),
    () => ({
      field: 'created',
      operator: '<=',
      value_field: 'shipped',
      when: { field: 'shipped', operator: 'is_not_null' },
    }),
    (k) => ({
      field: 'status',
      operator: 'not',
      conditions: [
        { operator: '==', value: 'cancelled' },
        { field: 'amount', operator: '>', value: 1500 + k },
      ],
    }),
    () => ({
      field: 'currency',
      operator: '==',
      value: 'USD',
      when: { field: 'country', operator: '==', value: 'US' },
    }),
    (k) => ({ field: 'items[0].qty', operator: 'range', min: 1, max: 10 + k }),
  ];
  const rules: Rule[] = [];
  for (let i = 0; i < ruleCount; i++) {
    const k = Math.floor(i / templates.length);
    const body = templates[i % templates.length]!(k);
    rules.push({
      rule_id: `R${String(i + 1).padStart(3, '0')}`,
      type: SEVERITIES[i % 3]!,
      error_message: `rule ${i + 1} failed`,
      field: body.field ?? 'amount',
      ...body,
    } as Rule);
  }
  return { metadata: { pack_id: 'bench.orders', version: '1.0.0' }, rules };
}

// ---- json-rules-engine translation -------------------------------------------------------------

const JRE_OPERATORS: Record<string, string> = {
  '==': 'equal',
  '!=': 'notEqual',
  '<': 'lessThan',
  '<=': 'lessThanInclusive',
  '>': 'greaterThan',
  '>=': 'greaterThanInclusive',
  in: 'in',
  not_in: 'notIn',
  contains: 'contains',
  starts_with: 'startsWith',
  ends_with: 'endsWith',
  matches: 'matches',
  is_null: 'isNull',
  is_not_null: 'isNotNull',
  required: 'required',
};

const jsonPath = (field: string): string => `$.${field}`;

function toJre(c: Condition, inherited: string): NestedCondition {
  const field = c.field ?? inherited;
  const fact = (path: string) => ({ fact: 'record', path: jsonPath(path) });
  switch (c.operator) {
    case 'all':
      return { all: c.conditions!.map((x) => toJre(x, field)) };
    case 'any':
      return { any: c.conditions!.map((x) => toJre(x, field)) };
    case 'not':
      return { not: { any: c.conditions!.map((x) => toJre(x, field)) } };
    case 'range':
      return {
        all: [
          { ...fact(field), operator: 'greaterThanInclusive', value: c.min as number },
          { ...fact(field), operator: 'lessThanInclusive', value: c.max as number },
        ],
      };
    default: {
      const value =
        c.value_field !== undefined
          ? fact(c.value_field as string)
          : c.operator === 'matches'
            ? `${(c.flags as string | undefined) ?? ''}/${c.value as string}`
            : (c.value ?? null);
      return { ...fact(field), operator: JRE_OPERATORS[c.operator]!, value: value as never };
    }
  }
}

export function jreEngine(rules: Rule[]): Engine {
  const engine = new Engine([], { allowUndefinedFacts: true });
  const patterns = new Map<string, RegExp>();
  engine.addOperator('matches', (a: unknown, spec: string) => {
    let re = patterns.get(spec);
    if (!re) {
      const slash = spec.indexOf('/');
      re = new RegExp(spec.slice(slash + 1), spec.slice(0, slash));
      patterns.set(spec, re);
    }
    return typeof a === 'string' && re.test(a);
  });
  engine.addOperator('startsWith', (a: unknown, b: string) => typeof a === 'string' && a.startsWith(b));
  engine.addOperator('endsWith', (a: unknown, b: string) => typeof a === 'string' && a.endsWith(b));
  engine.addOperator('isNull', (a: unknown) => a == null);
  engine.addOperator('isNotNull', (a: unknown) => a != null);
  engine.addOperator('required', (a: unknown) => a != null && a !== '');
  for (const rule of rules) {
    const test = toJre(rule, rule.field);
    const conditions: TopLevelCondition = rule.when
      ? { any: [{ not: toJre(rule.when, rule.field) }, test] }
      : { all: [test] };
    engine.addRule({ name: rule.rule_id, conditions, event: { type: rule.rule_id } });
  }
  return engine;
}

// ---- measurement -------------------------------------------------------------------------------

export async function run(args: string[]): Promise<void> {
  const recordCount = Number(args[0] ?? 10_000) || 10_000;
  const seconds = Number(args[1] ?? 3) || 3;
  const pack = benchPack(50);
  const records = generateRecords(recordCount);
  const compiled = compileRulePack(pack);
  const rules = compiled.ruleCount;
  console.log(`validation bench: ${rules} rules over ${fmt(recordCount)} generated records (node ${process.version})`);

  // Ours: warm up, then whole-pack runs until `seconds` have passed.
  const result = runRulePack(compiled, records, { maxReportedFailures: 0 });
  const oursFailures = Object.values(result.rule_results).reduce((n, r) => n + r.failed, 0);
  let runs = 0;
  const t0 = process.hrtime.bigint();
  let elapsed = 0;
  while (elapsed < seconds) {
    runRulePack(compiled, records, { maxReportedFailures: 0 });
    runs++;
    elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
  }
  const ours = (rules * recordCount * runs) / elapsed;
  console.log(
    `  ours:              ${fmt(ours)} rule evaluations/s (${runs} runs in ${fmt(elapsed, 2)} s, ${fmt((elapsed / runs) * 1000, 1)} ms per ${fmt(recordCount)}-record run)`,
  );

  // With every failure reported (what /validate returns, up to its cap), for comparison.
  const reportAll = process.hrtime.bigint();
  const full = runRulePack(compiled, records, { maxReportedFailures: Number.MAX_SAFE_INTEGER });
  const fullMs = Number(process.hrtime.bigint() - reportAll) / 1e6;
  console.log(
    `  ours, every failure listed: ${fmt(fullMs, 1)} ms for one run (${fmt(full.errors.length + full.warnings.length)} failures listed)`,
  );

  // json-rules-engine: one engine with the 50 rules, run per record, as its docs show.
  const engine = jreEngine(pack.rules);
  let jreFailures = 0;
  let jreRecords = 0;
  const j0 = process.hrtime.bigint();
  let jElapsed = 0;
  while (jElapsed < seconds && jreRecords < recordCount) {
    const { failureResults } = await engine.run({ record: records[jreRecords] });
    jreFailures += failureResults.length;
    jreRecords++;
    if ((jreRecords & 63) === 0) jElapsed = Number(process.hrtime.bigint() - j0) / 1e9;
  }
  jElapsed = Number(process.hrtime.bigint() - j0) / 1e9;
  const jre = (rules * jreRecords) / jElapsed;
  console.log(
    `  json-rules-engine: ${fmt(jre)} rule evaluations/s (${fmt(jreRecords)} records in ${fmt(jElapsed, 2)} s)`,
  );
  console.log(`  ratio:             ${fmt(ours / jre, 1)}x`);

  const subset = runRulePack(compiled, records.slice(0, jreRecords), { maxReportedFailures: 0 });
  const oursOnSubset = Object.values(subset.rule_results).reduce((n, r) => n + r.failed, 0);
  console.log(
    `  equivalence check: failures on the first ${fmt(jreRecords)} records: ours ${fmt(oursOnSubset)}, json-rules-engine ${fmt(jreFailures)}; on all records ours ${fmt(oursFailures)}`,
  );

  // ---- /validate requests/s -------------------------------------------------------------------
  await measureValidateRoute(pack, records[0], Number(args[2] ?? 10) || 10);
}
