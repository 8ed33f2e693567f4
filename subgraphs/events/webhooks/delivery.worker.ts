// The delivery worker: leases due deliveries (several processes may run one; see delivery.store),
// sends each signed, records the attempt, and schedules a retry with exponential backoff over
// hours, or gives up. A receiver that answers 410 Gone has asked to stop: its endpoint is
// disabled. A receiver that hangs costs one of this process's slots until its endpoint's
// timeout, and never more than its endpoint's concurrency: other endpoints keep being served.
import { continueTrace, traceparentInJson } from '../../../platform/telemetry/trace-context';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../../platform/logging/logger';
import type { ClaimedDelivery, DeliveryStore } from './delivery.store';
import type { EndpointService } from './endpoint.service';
import type { EndpointStore } from './endpoint.store';
import type { WebhookConfig } from './webhook.config';
import type { WebhookSend } from './webhook.sender';
import { signatureHeader } from './webhook.signer';

/** Lease beyond the endpoint's timeout, for the bookkeeping after the HTTP answer. */
const LEASE_MARGIN_MS = 30_000;
/** How long stop() lets deliveries in flight finish before it interrupts them. */
const STOP_GRACE_MS = 5_000;

export interface WorkerDeps {
  deliveries: DeliveryStore;
  endpoints: EndpointStore;
  service: EndpointService;
  send: WebhookSend;
  config: WebhookConfig;
  logger: Logger;
  /** Wall clock for the `webhook-timestamp` header. */
  now?: () => Date;
  random?: () => number;
}

export interface DeliveryWorker {
  start(): void;
  /**
   * Stops claiming and waits up to `graceMs` for the deliveries in flight; those still waiting on
   * their receivers then are interrupted and handed back to the queue (no attempt counted), so a
   * hanging receiver never holds up the process's shutdown for its endpoint's whole timeout.
   */
  stop(graceMs?: number): Promise<void>;
  /** Looks for due work now instead of at the next poll (after a new event is queued). */
  wake(): void;
  /** Deliveries this process has in flight. */
  inFlight(): number;
}

/** Delay before retry number `attempt` (1-based), or null when the attempts are used up. */
export function backoffDelay(
  config: Pick<WebhookConfig, 'backoffMs' | 'jitter'>,
  attempt: number,
  random: () => number,
) {
  const base = config.backoffMs[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 + config.jitter * random()));
}

export function createDeliveryWorker(deps: WorkerDeps): DeliveryWorker {
  const { deliveries, endpoints, service, send, config, logger } = deps;
  const now = deps.now ?? (() => new Date());
  const random = deps.random ?? Math.random;
  const workerId = randomUUID();
  const inFlight = new Set<Promise<void>>();
  let running = false;
  let loop: Promise<void> | null = null;
  let wakeUp: (() => void) | null = null;
  let woken = false;
  let stopping = new AbortController();

  function wake() {
    woken = true;
    wakeUp?.();
  }

  /** A delivery continues the trace of the request that published the event (its envelope's traceparent). */
  function attempt(d: ClaimedDelivery): Promise<void> {
    const attributes = { 'webhook.endpoint_id': d.endpoint_id, 'webhook.event_type': d.event_type };
    return continueTrace(traceparentInJson(d.payload), 'webhook.deliver', attributes, () => attemptOnce(d));
  }

  async function attemptOnce(d: ClaimedDelivery): Promise<void> {
    const attemptNo = d.attempts + 1;
    const [secrets, keys] = await Promise.all([
      endpoints.liveSecrets(d.tenant_id, d.endpoint_id),
      service.signingKeys(d.tenant_id),
    ]);
    const timestamp = now();
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'platform-webhooks/1',
      'webhook-id': d.event_id,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': signatureHeader(
        { secrets: secrets.map((s) => s.secret), privateKeys: keys.map((k) => k.private_key) },
        d.event_id,
        timestamp,
        d.payload,
      ),
    };
    const result = await send({
      url: d.url,
      headers,
      body: d.payload,
      timeoutMs: d.timeout_ms,
      signal: stopping.signal,
    });
    if (result.outcome === 'interrupted') {
      // Not the receiver's failure: back to the queue as it was (the receiver may have it already;
      // receivers deduplicate by webhook-id).
      await deliveries.release(d.id, workerId);
      return;
    }
    await deliveries.recordAttempt({
      tenantId: d.tenant_id,
      endpointId: d.endpoint_id,
      queueId: d.id,
      eventId: d.event_id,
      attempt: attemptNo,
      outcome: result.outcome,
      statusCode: result.statusCode,
      response: result.response,
      durationMs: result.durationMs,
    });
    if (result.outcome === 'success') {
      await deliveries.delivered(d.id, workerId);
      return;
    }
    const error = result.statusCode ? `HTTP ${result.statusCode}` : (result.response ?? result.outcome);
    if (result.statusCode === 410) {
      const reason = 'the receiver answered 410 Gone';
      await deliveries.failed(d.id, workerId, error);
      await endpoints.disable(d.tenant_id, d.endpoint_id, reason);
      await deliveries.cancelPending(d.tenant_id, d.endpoint_id, `endpoint disabled: ${reason}`);
      logger.warn({ tenantId: d.tenant_id, endpointId: d.endpoint_id }, 'webhook endpoint disabled: 410 Gone');
      return;
    }
    const delay = backoffDelay(config, attemptNo, random);
    if (delay === null) {
      await deliveries.failed(d.id, workerId, error);
      logger.warn(
        { tenantId: d.tenant_id, endpointId: d.endpoint_id, eventId: d.event_id, attempts: attemptNo },
        'webhook delivery failed for good',
      );
    } else {
      await deliveries.retryLater(d.id, workerId, delay, error);
    }
  }

  function run(d: ClaimedDelivery) {
    const p = attempt(d)
      .catch((err: unknown) => {
        // The store failed (not the receiver): the lease runs out and the row is tried again.
        logger.error({ err, deliveryId: d.id }, 'webhook delivery bookkeeping failed');
      })
      .finally(() => {
        inFlight.delete(p);
        wake();
      });
    inFlight.add(p);
  }

  async function cycle() {
    while (running) {
      woken = false;
      const free = config.workerSlots - inFlight.size;
      let claimed = 0;
      if (free > 0) {
        try {
          const batch = await deliveries.claim(workerId, free, LEASE_MARGIN_MS);
          claimed = batch.length;
          for (const d of batch) run(d);
        } catch (err) {
          logger.error({ err }, 'webhook claim failed');
        }
      }
      // Claimed a full batch: there may be more. Otherwise sleep until woken or the next poll.
      if (claimed > 0 && claimed === free) continue;
      if (woken) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, config.pollMs);
        wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wakeUp = null;
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      stopping = new AbortController();
      loop = cycle();
    },
    async stop(graceMs = STOP_GRACE_MS) {
      running = false;
      wakeUp?.();
      await loop;
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
      await Promise.race([Promise.all([...inFlight]), grace]);
      clearTimeout(timer);
      stopping.abort();
      await Promise.all([...inFlight]);
    },
    wake,
    inFlight: () => inFlight.size,
  };
}
