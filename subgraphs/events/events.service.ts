// The events backbone's rules: the topic catalog, publishing (CloudEvents 1.0 envelope, the
// topic's schema, size, rate and storage limits), durable subscriptions (pull, ack, nack, the
// dead-letter queue, replay) and the reads behind the live GraphQL feed. Plain TypeScript: the
// Caller first, no HTTP or GraphQL; every method resolves the tenant by the platform's one rule.
import { randomUUID } from 'node:crypto';
import { CloudEvent, ValidationError } from 'cloudevents';
import { assertScope } from '../../platform/auth/auth-context';
import { requireAuth, type Caller } from '../../platform/auth/caller';
import { actsForAnyTenant } from '../../platform/auth/tenant.rule';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import { EVENT_CATALOGUE } from '../../platform/contracts/events.catalogue';
import {
  ConflictError,
  ForbiddenError,
  InputError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
} from '../../platform/errors/domain-errors';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import { DLQ_REDRIVEN_EVENT } from './events.audit';
import type { EventsConfig } from './events.config';
import type { EventsStore } from '../../platform/events/backbone/backbone.store';
import {
  DEFAULT_PAGE,
  MAX_NAME,
  MAX_PAGE,
  MAX_PULL,
  type DeadLetter,
  type EventRecord,
  type LeasedMessage,
  type PublishInput,
  type ReplayFrom,
  type Subscription,
  type SubscriptionInput,
  type Topic,
} from '../../platform/events/backbone/backbone.types';
import { PublishRate } from './publish.limits';
import { assertPayload, assertValidSchema, storableSchema } from './topic-schema';

const NAME = /^[a-z0-9][a-z0-9._-]*$/;
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

function assertName(value: string, field: string): void {
  if (value.length < 1 || value.length > MAX_NAME || !NAME.test(value)) {
    throw InputError.of(
      [field],
      `String should match pattern '${NAME.source}' and be at most ${MAX_NAME} characters`,
      'string_pattern_mismatch',
    );
  }
}

function assertPosition(value: number, field: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw InputError.of([field], 'Input should be a non-negative integer', 'int_type');
  }
}

function assertLimit(value: number, max: number, field: string): void {
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw InputError.of([field], `Input should be between 1 and ${max}`, 'less_than_equal');
  }
}

// The structured CloudEvents JSON of a stored event, with its tenant and position as extensions:
// the platform's, since notice relays queue webhooks with it too.
export { cloudEventJson } from '../../platform/events/backbone/webhook-queue.store';

export type Notify = (event: EventRecord) => void;

export class EventsService {
  private readonly rate: PublishRate;

  constructor(
    private readonly store: EventsStore,
    private readonly access: TenantAccess,
    private readonly config: EventsConfig,
    private readonly notify: Notify = () => {},
  ) {
    this.rate = new PublishRate(config.publishPerSecond);
  }

  /** Writes the platform catalogue (platform/contracts/events.catalogue.ts) into the topic table; idempotent. */
  async seedCatalogue(): Promise<number> {
    for (const c of EVENT_CATALOGUE) {
      await this.store.upsertPlatformTopic({
        name: c.topic,
        version: c.version,
        schema: storableSchema(c.schema),
        description: c.description,
      });
    }
    return EVENT_CATALOGUE.length;
  }

  private tenant(caller: Caller, requested: string | undefined, action: string): Promise<string> {
    return this.access.resolve(caller, requested, ['tenantId'], `events.${action}`);
  }

  /** The tenant of a change: a token must carry the `write` scope (anonymous callers are the trusted network's). */
  private writeTenant(caller: Caller, requested: string | undefined, action: string): Promise<string> {
    if (caller.auth) assertScope(caller.auth, 'write');
    return this.tenant(caller, requested, action);
  }

  private async topicOf(tenantId: string, name: string, field = 'topic'): Promise<Topic> {
    assertName(name, field);
    const topic = await this.store.topic(tenantId, name);
    if (!topic) throw new NotFoundError(`Topic ${name} not found`);
    return topic;
  }

  async topics(caller: Caller, requestedTenant?: string): Promise<Topic[]> {
    const tenantId = await this.tenant(caller, requestedTenant, 'topics.list');
    return this.store.topics(tenantId);
  }

  async topic(caller: Caller, name: string, requestedTenant?: string): Promise<Topic> {
    const tenantId = await this.tenant(caller, requestedTenant, 'topics.get');
    return this.topicOf(tenantId, name, 'name');
  }

  /** A tenant's own topic with its payload schema. A platform topic's name cannot be taken. */
  async registerTopic(
    caller: Caller,
    input: { tenantId?: string; name: string; schema: unknown; description?: string },
  ): Promise<Topic> {
    const tenantId = await this.writeTenant(caller, input.tenantId, 'topics.register');
    assertName(input.name, 'name');
    assertValidSchema(input.schema, 'schema');
    if (await this.store.topic(tenantId, input.name)) throw new ConflictError(`Topic ${input.name} already exists`);
    const topic = {
      name: input.name,
      version: 1,
      schema: storableSchema(input.schema as object),
      description: input.description ?? '',
    };
    if (!(await this.store.createTopic(tenantId, topic))) throw new ConflictError(`Topic ${input.name} already exists`);
    return { ...topic, owner: tenantId, platform: false };
  }

  /**
   * Stores one event in the caller's tenant stream of its topic. A retry with the same id returns
   * the stored event (`duplicate`), so publishers may retry freely.
   */
  async publish(caller: Caller, input: PublishInput): Promise<{ event: EventRecord; duplicate: boolean }> {
    const tenantId = await this.writeTenant(caller, input.tenantId, 'publish');
    const topic = await this.topicOf(tenantId, input.topic);
    // Platform topics carry the platform's own events: only its services and operators publish them.
    if (topic.platform && !(caller.auth && actsForAnyTenant(caller.auth))) {
      requireAuth(caller);
      throw new ForbiddenError(
        `Topic ${topic.name} is a platform topic: only platform services and operators publish to it`,
      );
    }
    if (input.traceparent !== undefined && !TRACEPARENT.test(input.traceparent)) {
      throw InputError.of(
        ['traceparent'],
        'Not a W3C traceparent (version-traceid-parentid-flags)',
        'string_pattern_mismatch',
      );
    }
    if (input.time !== undefined && Number.isNaN(Date.parse(input.time))) {
      throw InputError.of(['time'], 'Input should be an RFC 3339 timestamp', 'datetime_parsing');
    }
    let envelope: CloudEvent<unknown>;
    try {
      envelope = new CloudEvent<unknown>({
        id: input.id ?? randomUUID(),
        source: input.source ?? `/tenants/${tenantId}/topics/${topic.name}`,
        type: input.type ?? topic.name,
        time: new Date(input.time ?? Date.now()).toISOString(),
        subject: input.subject,
        datacontenttype: 'application/json',
        data: input.data,
        tenantid: tenantId,
        ...(input.traceparent !== undefined ? { traceparent: input.traceparent } : {}),
      });
    } catch (err) {
      if (err instanceof ValidationError) {
        throw InputError.of([], `Not a valid CloudEvent: ${err.message} ${JSON.stringify(err.errors ?? [])}`);
      }
      throw err;
    }
    const size = Buffer.byteLength(JSON.stringify(envelope.toJSON()));
    if (size > this.config.maxEventBytes) {
      throw new PayloadTooLargeError(`Event too large: ${size} bytes, at most ${this.config.maxEventBytes}`);
    }
    assertPayload(topic, input.data);
    this.rate.take(tenantId);
    const outcome = await this.store.publish(
      tenantId,
      {
        id: envelope.id,
        tenantId,
        topic: topic.name,
        source: envelope.source,
        type: envelope.type,
        time: envelope.time!,
        subject: envelope.subject ?? null,
        traceparent: input.traceparent ?? null,
        data: input.data,
        size,
      },
      this.config.tenantStorageBytes,
    );
    if (outcome.kind === 'over-quota') {
      throw new RateLimitedError('Event storage quota of this tenant exhausted', 60);
    }
    if (outcome.kind === 'stored') this.notify(outcome.event);
    return { event: outcome.event, duplicate: outcome.kind === 'duplicate' };
  }

  /** A page of a topic's events after a position (replay by reading). */
  async events(
    caller: Caller,
    q: { tenantId?: string; topic: string; afterPosition?: number; limit?: number },
  ): Promise<EventRecord[]> {
    const tenantId = await this.tenant(caller, q.tenantId, 'events.list');
    const topic = await this.topicOf(tenantId, q.topic);
    const after = q.afterPosition ?? 0;
    assertPosition(after, 'afterPosition');
    const limit = q.limit ?? DEFAULT_PAGE;
    assertLimit(limit, MAX_PAGE, 'limit');
    return this.store.eventsAfter(tenantId, topic.name, after, limit);
  }

  async createSubscription(caller: Caller, input: SubscriptionInput): Promise<Subscription> {
    const tenantId = await this.writeTenant(caller, input.tenantId, 'subscriptions.create');
    assertName(input.name, 'name');
    const topic = await this.topicOf(tenantId, input.topic);
    const d = this.config.subscriptionDefaults;
    const sub: Subscription = {
      tenantId,
      name: input.name,
      topic: topic.name,
      position: input.fromPosition ?? (await this.store.headPosition(tenantId, topic.name)),
      maxDeliveries: input.maxDeliveries ?? d.maxDeliveries,
      ackTimeoutMs: input.ackTimeoutMs ?? d.ackTimeoutMs,
      backoffMs: input.backoffMs ?? d.backoffMs,
    };
    assertPosition(sub.position, 'fromPosition');
    assertLimit(sub.maxDeliveries, 100, 'maxDeliveries');
    assertLimit(sub.ackTimeoutMs, 3_600_000, 'ackTimeoutMs');
    if (!Number.isInteger(sub.backoffMs) || sub.backoffMs < 0 || sub.backoffMs > 3_600_000) {
      throw InputError.of(['backoffMs'], 'Input should be between 0 and 3600000', 'less_than_equal');
    }
    if (!(await this.store.createSubscription(sub))) {
      throw new ConflictError(`Subscription ${input.name} already exists`);
    }
    return sub;
  }

  async subscriptions(caller: Caller, requestedTenant?: string): Promise<Subscription[]> {
    const tenantId = await this.tenant(caller, requestedTenant, 'subscriptions.list');
    return this.store.subscriptions(tenantId);
  }

  private async subscriptionOf(tenantId: string, name: string): Promise<Subscription> {
    assertName(name, 'name');
    const sub = await this.store.subscription(tenantId, name);
    if (!sub) throw new NotFoundError(`Subscription ${name} not found`);
    return sub;
  }

  async subscription(caller: Caller, name: string, requestedTenant?: string): Promise<Subscription> {
    const tenantId = await this.tenant(caller, requestedTenant, 'subscriptions.get');
    return this.subscriptionOf(tenantId, name);
  }

  async deleteSubscription(caller: Caller, name: string, requestedTenant?: string): Promise<void> {
    const tenantId = await this.writeTenant(caller, requestedTenant, 'subscriptions.delete');
    assertName(name, 'name');
    if (!(await this.store.deleteSubscription(tenantId, name)))
      throw new NotFoundError(`Subscription ${name} not found`);
  }

  /** Leases up to `max` messages to this consumer; each must be acked or nacked before its lease expires. */
  async pull(caller: Caller, name: string, max = 10, requestedTenant?: string): Promise<LeasedMessage[]> {
    const tenantId = await this.writeTenant(caller, requestedTenant, 'subscriptions.pull');
    assertLimit(max, MAX_PULL, 'max');
    await this.subscriptionOf(tenantId, name);
    return this.store.pull(tenantId, name, max);
  }

  /** The lease ids acknowledged; an unknown or expired lease is left out (its message comes again). */
  async ack(caller: Caller, name: string, leaseIds: string[], requestedTenant?: string): Promise<string[]> {
    const tenantId = await this.writeTenant(caller, requestedTenant, 'subscriptions.ack');
    assertName(name, 'name');
    leaseIds.forEach((id, i) => assertLeaseId(id, ['leaseIds', i]));
    return this.store.ack(tenantId, name, leaseIds);
  }

  /** Gives a message back: redelivered after an exponential backoff, or dead-lettered after its last delivery. */
  async nack(
    caller: Caller,
    name: string,
    leaseId: string,
    error?: string,
    requestedTenant?: string,
  ): Promise<'ready' | 'dead'> {
    const tenantId = await this.writeTenant(caller, requestedTenant, 'subscriptions.nack');
    assertName(name, 'name');
    assertLeaseId(leaseId, ['leaseId']);
    const state = await this.store.nack(tenantId, name, leaseId, error?.slice(0, 2000) ?? null);
    if (!state) throw new NotFoundError('Lease not found or expired');
    return state;
  }

  async deadLetters(
    caller: Caller,
    name: string,
    page: { afterPosition?: number; limit?: number } = {},
    requestedTenant?: string,
  ): Promise<DeadLetter[]> {
    const tenantId = await this.tenant(caller, requestedTenant, 'dlq.list');
    await this.subscriptionOf(tenantId, name);
    const after = page.afterPosition ?? 0;
    assertPosition(after, 'afterPosition');
    const limit = page.limit ?? DEFAULT_PAGE;
    assertLimit(limit, MAX_PAGE, 'limit');
    return this.store.deadLetters(tenantId, name, after, limit);
  }

  async deadLetter(caller: Caller, name: string, position: number, requestedTenant?: string): Promise<DeadLetter> {
    const tenantId = await this.tenant(caller, requestedTenant, 'dlq.get');
    assertName(name, 'name');
    assertPosition(position, 'position');
    const dead = await this.store.deadLetter(tenantId, name, position);
    if (!dead) throw new NotFoundError(`No dead letter at position ${position} of ${name}`);
    return dead;
  }

  /** Puts dead letters (all, or those at `positions`) back on the queue; the redrive is audited in the ledger. */
  async redrive(caller: Caller, name: string, positions?: number[], requestedTenant?: string): Promise<number[]> {
    const tenantId = await this.writeTenant(caller, requestedTenant, 'dlq.redrive');
    await this.subscriptionOf(tenantId, name);
    positions?.forEach((p, i) => assertPosition(p, `positions.${i}`));
    return this.store.redrive(tenantId, name, positions ?? null, (moved) =>
      auditEvent(caller, {
        tenantId,
        type: DLQ_REDRIVEN_EVENT,
        actor: caller.auth?.username ?? null,
        data: { subscription: name, positions: moved.slice(0, 1000), count: moved.length },
      }),
    );
  }

  /** Delivers the subscription's events again from a position or a time; returns the new position. */
  async replay(caller: Caller, name: string, from: ReplayFrom, requestedTenant?: string): Promise<number> {
    const tenantId = await this.writeTenant(caller, requestedTenant, 'subscriptions.replay');
    const sub = await this.subscriptionOf(tenantId, name);
    if ((from.afterPosition === undefined) === (from.time === undefined)) {
      throw InputError.of(['afterPosition'], 'Give exactly one of afterPosition and time', 'value_error');
    }
    let position: number;
    if (from.time !== undefined) {
      if (Number.isNaN(Date.parse(from.time))) {
        throw InputError.of(['time'], 'Input should be an RFC 3339 timestamp', 'datetime_parsing');
      }
      position = await this.store.positionBefore(tenantId, sub.topic, new Date(from.time).toISOString());
    } else {
      position = from.afterPosition!;
      assertPosition(position, 'afterPosition');
    }
    await this.store.rewind(tenantId, name, position);
    return position;
  }

  /** The tenant a live feed reads, by the same rule as every read; the topic must exist for it. */
  async feedStart(
    caller: Caller,
    topic: string,
    afterPosition: number | undefined,
    requestedTenant?: string,
  ): Promise<{ tenantId: string; topic: string; afterPosition: number }> {
    const tenantId = await this.tenant(caller, requestedTenant, 'events.subscribe');
    const t = await this.topicOf(tenantId, topic);
    if (afterPosition !== undefined) assertPosition(afterPosition, 'afterPosition');
    return {
      tenantId,
      topic: t.name,
      afterPosition: afterPosition ?? (await this.store.headPosition(tenantId, t.name)),
    };
  }

  /** A page of a feed (the tenant already resolved by feedStart). */
  feedPage(tenantId: string, topic: string, afterPosition: number, limit: number): Promise<EventRecord[]> {
    return this.store.eventsAfter(tenantId, topic, afterPosition, limit);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function assertLeaseId(id: string, loc: (string | number)[]): void {
  if (!UUID.test(id)) throw InputError.of(loc, 'Input should be a valid UUID', 'uuid_parsing');
}
