// The pure parts of alerting, with time passed in: rates and ratios from the sample history
// (counter resets, windows), the state machine (pending for `for`, firing once, silences holding
// and releasing, resolved only after a notified firing), silence matching, and the Prometheus
// text reader the scraped source uses.
import { nextState, ruleValue, silenceFor } from '../../../subgraphs/observability/alert.evaluate';
import type { AlertRule, Silence } from '../../../subgraphs/observability/alert.types';
import { SampleHistory, MAX_SERIES_PER_METRIC } from '../../../subgraphs/observability/sample.history';
import { parsePrometheusText } from '../../../platform/telemetry/prometheus-text';

const rule = (over: Partial<AlertRule> = {}): AlertRule => ({
  id: '00000000-0000-4000-8000-000000000001',
  tenantId: 't1',
  scope: 'platform',
  name: 'errors',
  kind: 'rate',
  metric: 'errors_total',
  matchers: {},
  denominatorMetric: null,
  denominatorMatchers: null,
  op: '>',
  threshold: 1,
  windowSeconds: 60,
  forSeconds: 0,
  severity: 'warning',
  summary: '',
  enabled: true,
  createdBy: 'u',
  createdAt: new Date(0).toISOString(),
  ...over,
});

const s = (name: string, value: number, labels: Record<string, string> = {}) => ({ name, labels, value });

describe('rule values', () => {
  it('a rate is the increase over the window per second, across series, a drop counted as a reset', () => {
    const h = new SampleHistory();
    h.record([s('errors_total', 0, { a: '1' }), s('errors_total', 100, { a: '2' })], 0, 120_000);
    h.record([s('errors_total', 30, { a: '1' }), s('errors_total', 130, { a: '2' })], 30_000, 120_000);
    h.record([s('errors_total', 5, { a: '1' }), s('errors_total', 160, { a: '2' })], 60_000, 120_000);
    // a=1: +30 then a reset to 5 (counts 5); a=2: +60. 95 over 60 s.
    expect(ruleValue(rule(), h, 60_000)).toBeCloseTo(95 / 60);
    expect(ruleValue(rule({ matchers: { a: '2' } }), h, 60_000)).toBeCloseTo(1);
    // Outside the window only one sample is left: no value.
    expect(ruleValue(rule({ windowSeconds: 10 }), h, 60_000)).toBeNull();
  });

  it('a ratio divides two increases; 0/0 has no value; a tenant rule reads its own tenant only', () => {
    const h = new SampleHistory();
    const at = (t: number, err: number, all: number) =>
      h.record(
        [
          s('err', err, { tenant: 't1' }),
          s('all', all, { tenant: 't1' }),
          s('err', err * 10, { tenant: 't2' }),
          s('all', all, { tenant: 't2' }),
        ],
        t,
        600_000,
      );
    at(0, 0, 0);
    at(30_000, 0, 0);
    const ratio = rule({ kind: 'ratio', metric: 'err', denominatorMetric: 'all', denominatorMatchers: {} });
    expect(ruleValue(ratio, h, 30_000)).toBeNull();
    at(60_000, 5, 100);
    expect(ruleValue({ ...ratio, scope: 'tenant' }, h, 60_000)).toBeCloseTo(0.05);
    expect(ruleValue(ratio, h, 60_000)).toBeCloseTo(55 / 200); // platform: both tenants
    expect(ruleValue(rule({ kind: 'threshold', metric: 'all', scope: 'tenant' }), h, 60_000)).toBe(100);
  });

  it('keeps at most MAX_SERIES_PER_METRIC series of one metric', () => {
    const h = new SampleHistory();
    const many = Array.from({ length: MAX_SERIES_PER_METRIC + 500 }, (_, i) => s('m', 1, { id: String(i) }));
    h.record(many, 0, 60_000);
    expect(h.seriesCount).toBe(MAX_SERIES_PER_METRIC);
  });
});

describe('alert states', () => {
  const silence = (over: Partial<Silence> = {}): Silence => ({
    id: '00000000-0000-4000-8000-0000000000aa',
    tenantId: 't1',
    matchers: { alertname: 'errors' },
    startsAt: new Date(0).toISOString(),
    endsAt: new Date(100_000).toISOString(),
    createdBy: 'u',
    comment: 'why',
    createdAt: new Date(0).toISOString(),
    ...over,
  });

  it('is pending for `for`, then fires once, then resolves once', () => {
    const r = rule({ forSeconds: 30 });
    let step = nextState(r, null, 5, [], 0);
    expect([step.state.state, step.notify]).toEqual(['pending', null]);
    step = nextState(r, step.state, 5, [], 20_000);
    expect([step.state.state, step.notify]).toEqual(['pending', null]);
    step = nextState(r, step.state, 5, [], 30_000);
    expect([step.state.state, step.notify, step.state.firedAt]).toEqual([
      'firing',
      'firing',
      new Date(30_000).toISOString(),
    ]);
    step = nextState(r, step.state, 5, [], 45_000);
    expect([step.state.state, step.notify]).toEqual(['firing', null]);
    step = nextState(r, step.state, 0.5, [], 60_000);
    expect([step.state.state, step.notify, step.state.resolvedAt]).toEqual([
      'inactive',
      'resolved',
      new Date(60_000).toISOString(),
    ]);
    step = nextState(r, step.state, null, [], 75_000);
    expect([step.state.state, step.notify]).toEqual(['inactive', null]);
  });

  it('a pending alert that stops holding goes back to inactive without a word', () => {
    const r = rule({ forSeconds: 60 });
    const pending = nextState(r, null, 5, [], 0).state;
    expect(nextState(r, pending, 0, [], 10_000)).toMatchObject({ state: { state: 'inactive' }, notify: null });
  });

  it('a silence holds the firing notification; when it ends, the next evaluation sends it', () => {
    const r = rule();
    const held = nextState(r, null, 5, [silence()], 10_000);
    expect(held).toMatchObject({ state: { state: 'firing', notified: false, silencedBy: silence().id }, notify: null });
    const still = nextState(r, held.state, 5, [silence()], 50_000);
    expect(still.notify).toBeNull();
    const released = nextState(r, still.state, 5, [silence()], 100_000); // endsAt is exclusive
    expect(released).toMatchObject({ state: { notified: true, silencedBy: null }, notify: 'firing' });
    // Resolving a firing that was never notified says nothing.
    expect(nextState(r, held.state, 0, [], 60_000).notify).toBeNull();
  });

  it("silences match the alert's labels, within their time and tenant only", () => {
    const r = rule({ matchers: { service: 'ledger' } });
    expect(silenceFor(r, [silence({ matchers: { service: 'ledger' } })], 1)).toBeDefined();
    expect(silenceFor(r, [silence({ matchers: { service: 'ocr' } })], 1)).toBeUndefined();
    expect(silenceFor(r, [silence({ tenantId: 't2' })], 1)).toBeUndefined();
    expect(silenceFor(r, [silence({ startsAt: new Date(50).toISOString() })], 1)).toBeUndefined();
    expect(silenceFor(r, [silence({ matchers: { severity: 'warning', rule_id: r.id } })], 1)).toBeDefined();
  });
});

describe('the Prometheus text reader', () => {
  it('reads names, escaped labels and special values, and skips comments and broken lines', () => {
    const text = [
      '# HELP x_total help',
      '# TYPE x_total counter',
      'x_total{route="/a",msg="say \\"hi\\"\\n"} 3',
      'y 1.5e3 1700000000000',
      'z{a="1",} +Inf',
      'broken{a=1} 2',
      'nan NaN',
      '',
    ].join('\n');
    const samples = parsePrometheusText(text);
    expect(samples.slice(0, 3)).toEqual([
      { name: 'x_total', labels: { route: '/a', msg: 'say "hi"\n' }, value: 3 },
      { name: 'y', labels: {}, value: 1500 },
      { name: 'z', labels: { a: '1' }, value: Infinity },
    ]);
    expect(samples).toHaveLength(4);
    expect(samples[3]!.value).toBeNaN();
  });
});
