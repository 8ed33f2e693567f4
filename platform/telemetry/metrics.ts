// Prometheus metrics (prom-client): one registry per service for what its requests do, and one
// for the process (Node's own metrics, the database pool, the outbox's lag), which every service
// of the process serves beside its own on GET /metrics. Names follow Prometheus conventions
// (`_total`, `_seconds`); labels are bounded: routes are Fastify's templates (never a raw path,
// which could carry an id or an email), tenants and GraphQL operation names go through a
// cardinality budget (label-budget.ts). Requests are counted in a tally (request-tally.ts) and
// read into these metrics when they are read, not per request.
import { collectDefaultMetrics, Counter, Gauge, Registry, type Metric } from 'prom-client';
import { LabelBudget } from './label-budget';
import { RequestTally, TalliedHistogram } from './request-tally';

/** Distinct tenants (and operation names) per service that keep their own series. */
export const TENANT_BUDGET = 50;
export const OPERATION_BUDGET = 200;

/** The request duration histogram's bounds, in seconds. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface ServiceMetrics {
  registry: Registry;
  /** Where the request hook counts (requests, errors, 429s, durations, tenants, operations). */
  tally: RequestTally;
  requests: Counter<'method' | 'route' | 'status'>;
  errors: Counter<'method' | 'route' | 'status'>;
  duration: TalliedHistogram;
  tenantRequests: Counter<'tenant'>;
  operations: Counter<'operation' | 'outcome'>;
  rateLimited: Counter<'route'>;
  tenants: LabelBudget;
  operationNames: LabelBudget;
}

const services = new Map<string, ServiceMetrics>();
let processRegistry: Registry | undefined;

/** Process-wide metrics: Node's defaults plus whatever platform parts register (pool, outbox). */
export function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** The metrics of one service of this process (created on first use; one set per service name). */
export function serviceMetrics(service: string): ServiceMetrics {
  const known = services.get(service);
  if (known) return known;
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  const registers = [registry];
  const tally = new RequestTally(DURATION_BUCKETS);
  // Every counter fed by the tally takes what it counted whenever any of them is read.
  const collect = () => tally.flush(metrics);
  // Created in this order, the order /metrics lists them in.
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route template and status',
    labelNames: ['method', 'route', 'status'],
    registers,
    collect,
  });
  const errors = new Counter({
    name: 'http_request_errors_total',
    help: 'HTTP requests answered with a 5xx status',
    labelNames: ['method', 'route', 'status'],
    registers,
    collect,
  });
  const duration = new TalliedHistogram('http_request_duration_seconds', 'Time from request to response', tally);
  // A registry takes any object shaped like its metrics; prom-client's types list only its own.
  registry.registerMetric(duration as unknown as Metric);
  const tenantRequests = new Counter({
    name: 'tenant_requests_total',
    help: `Requests per tenant: the first ${TENANT_BUDGET} tenants seen have their own series, the rest are "other"`,
    labelNames: ['tenant'],
    registers,
    collect,
  });
  const operations = new Counter({
    name: 'graphql_operations_total',
    help: `GraphQL operations by name (first ${OPERATION_BUDGET} names, then "other") and outcome`,
    labelNames: ['operation', 'outcome'],
    registers,
    collect,
  });
  const rateLimited = new Counter({
    name: 'rate_limit_rejections_total',
    help: 'Requests refused with 429 (rate limits, quotas)',
    labelNames: ['route'],
    registers,
    collect,
  });
  const metrics: ServiceMetrics = {
    registry,
    tally,
    requests,
    errors,
    duration,
    tenantRequests,
    operations,
    rateLimited,
    tenants: new LabelBudget(TENANT_BUDGET),
    operationNames: new LabelBudget(OPERATION_BUDGET),
  };
  services.set(service, metrics);
  return metrics;
}

/** Every registry of this process with its default labels: each service's, then the process's (alert rules read them in-process). */
export function allRegistries(): { registry: Registry; labels: Record<string, string> }[] {
  return [
    ...[...services.entries()].map(([service, m]) => ({ registry: m.registry, labels: { service } })),
    { registry: processMetrics(), labels: {} },
  ];
}

/** The text GET /metrics answers for a service: its own metrics, then the process's. */
export async function metricsText(service: string): Promise<{ contentType: string; body: string }> {
  // Concatenated, not Registry.merge()d: a merged registry drops the service's default label.
  const own = serviceMetrics(service).registry;
  const [mine, shared] = await Promise.all([own.metrics(), processMetrics().metrics()]);
  return { contentType: own.contentType, body: `${mine}\n${shared}` };
}

/** A gauge of the process registry whose value is read at scrape time (pool sizes, queue depths). */
export function processGauge<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
  collect: (gauge: Gauge<L>) => void | Promise<void>,
): Gauge<L> {
  const registry = processMetrics();
  const existing = registry.getSingleMetric(name);
  if (existing) registry.removeSingleMetric(name);
  return new Gauge<L>({
    name,
    help,
    labelNames: labelNames as L[],
    registers: [registry],
    async collect() {
      await collect(this);
    },
  });
}
