// Service-specific metrics (issue 31, "Metrics"): one call at each place the thing happens, the
// series in that service's registry (so GET /metrics on its port shows them, label `service`).
// Labels are bounded by construction: step types, statuses, model ids from the catalogue, the
// platform's own consumer names; never a tenant, a workflow name or an id.
import { Counter, Histogram, type Registry } from 'prom-client';
import { processGauge, serviceMetrics } from './metrics';

const made = new Map<string, unknown>();

/** One metric per (service, name), created on first use in that service's registry. */
function once<T>(service: string, name: string, make: (registers: Registry[]) => T): T {
  const key = `${service}\u0000${name}`;
  if (!made.has(key)) made.set(key, make([serviceMetrics(service).registry]));
  return made.get(key) as T;
}

/** A workflow execution ended: completed, failed or rejected (after compensation, if any). */
export function workflowExecutionEnded(status: string): void {
  once(
    'workflow',
    'executions',
    (registers) =>
      new Counter({
        name: 'workflow_executions_total',
        help: 'Workflow executions ended, by final status',
        labelNames: ['status'],
        registers,
      }),
  ).inc({ status });
}

/** Starts timing one leaf step (action, validation, ai); call the result with its outcome. */
export function workflowStepTimer(type: string): (outcome: 'ok' | 'error') => void {
  const h = once(
    'workflow',
    'steps',
    (registers) =>
      new Histogram({
        name: 'workflow_step_duration_seconds',
        help: 'Time one leaf step took (one attempt), by step type and outcome',
        labelNames: ['type', 'outcome'],
        buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
        registers,
      }),
  );
  const end = h.startTimer({ type });
  return (outcome) => end({ outcome });
}

interface AiUsage {
  status: string;
  model: string | null;
  promptTokens: number;
  completionTokens: number;
  cost: number;
  attempts: readonly { outcome: string }[];
}

/** One AI broker call's usage: tokens and cost by model, and each failover (a model tried that did not answer). */
export function aiBrokerUsage(e: AiUsage): void {
  const m = once('ai-broker', 'usage', (registers) => ({
    tokens: new Counter({
      name: 'ai_broker_tokens_total',
      help: 'Tokens used, by model and kind (prompt, completion)',
      labelNames: ['model', 'kind'],
      registers,
    }),
    cost: new Counter({
      name: 'ai_broker_cost_total',
      help: "Cost charged, in the catalogue's currency, by model",
      labelNames: ['model'],
      registers,
    }),
    calls: new Counter({
      name: 'ai_broker_calls_total',
      help: 'Broker calls by status (ok, failed: every model failed)',
      labelNames: ['status'],
      registers,
    }),
    failovers: new Counter({
      name: 'ai_broker_failovers_total',
      help: 'Models tried that did not answer (the next was tried), by outcome',
      labelNames: ['outcome'],
      registers,
    }),
  }));
  const model = e.model ?? 'none';
  m.calls.inc({ status: e.status });
  if (e.promptTokens > 0) m.tokens.inc({ model, kind: 'prompt' }, e.promptTokens);
  if (e.completionTokens > 0) m.tokens.inc({ model, kind: 'completion' }, e.completionTokens);
  if (e.cost > 0) m.cost.inc({ model }, e.cost);
  for (const a of e.attempts)
    if (a.outcome !== 'ok' && a.outcome !== 'skipped') m.failovers.inc({ outcome: a.outcome.slice(0, 32) });
}

/** A platform consumer handled an event: how long after the event's time (producer to consumer). */
export function eventConsumed(subscription: string, eventTime: string): void {
  const lag = (Date.now() - Date.parse(eventTime)) / 1000;
  if (!Number.isFinite(lag)) return;
  once(
    'events',
    'consumer-lag',
    (registers) =>
      new Histogram({
        name: 'events_consumer_lag_seconds',
        help: "Time from an event's publication to its handling by a platform consumer, by subscription",
        labelNames: ['subscription'],
        buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 3600],
        registers,
      }),
  ).observe({ subscription }, Math.max(0, lag));
}

/** The OCR queue's depth by status, read at scrape time (`read` is the OCR store's count). */
export function registerOcrQueueGauge(read: () => Promise<Record<string, number>>): void {
  processGauge('ocr_queue_jobs', 'OCR jobs waiting or running, by status', ['status'], async (g) => {
    const counts = await read().catch(() => undefined);
    if (counts) for (const [status, n] of Object.entries(counts)) g.set({ status }, n);
  });
}
