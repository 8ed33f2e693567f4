// Webhook endpoints of a tenant: registration (with the SSRF guard's verdict as a clear input
// error), changes, secret rotation with an overlap, the delivery log, and the tenant's JWKS.
// Knows nothing of HTTP or GraphQL; every method takes the tenant id first.
import { randomUUID } from 'node:crypto';
import { ConflictError, InputError, NotFoundError, type InputIssue } from '../../../platform/errors/domain-errors';
import { isUuid } from '../../../platform/ids';
import type { AddressGuard } from './address.guard';
import type { DeliveryRow, DeliveryStore, MessageRow } from './delivery.store';
import type { EndpointFields, EndpointRow, EndpointStore } from './endpoint.store';
import { TOPIC_PATTERN } from './topic.filter';
import type { WebhookConfig } from './webhook.config';
import { newSecret, newSigningKey, publicJwk, type Jwks } from './webhook.signer';

export interface EndpointInput {
  url?: unknown;
  description?: unknown;
  topics?: unknown;
  enabled?: unknown;
  timeoutMs?: unknown;
  maxConcurrency?: unknown;
}

export interface Endpoint {
  id: string;
  tenantId: string;
  url: string;
  description: string | null;
  topics: string[];
  enabled: boolean;
  disabledReason: string | null;
  disabledAt: Date | null;
  timeoutMs: number;
  maxConcurrency: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface RotatedSecret {
  secret: string;
  /** Until when the previous secret(s) still sign. */
  previousValidUntil: Date;
}

function toEndpoint(r: EndpointRow): Endpoint {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    url: r.url,
    description: r.description,
    topics: r.topics,
    enabled: r.enabled,
    disabledReason: r.disabled_reason,
    disabledAt: r.disabled_at,
    timeoutMs: r.timeout_ms,
    maxConcurrency: r.max_concurrency,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export interface EndpointServiceDeps {
  endpoints: EndpointStore;
  deliveries: DeliveryStore;
  guard: AddressGuard;
  config: WebhookConfig;
}

export function createEndpointService({ endpoints, deliveries, guard, config }: EndpointServiceDeps) {
  async function validate(input: EndpointInput, base: EndpointFields | null): Promise<EndpointFields> {
    const issues: InputIssue[] = [];
    // Domain field names: the REST door reports them as ["body", "timeout_ms"], GraphQL as the field.
    const issue = (field: string, msg: string, type = 'value_error') => issues.push({ loc: [field], msg, type });
    const fields: EndpointFields = base
      ? { ...base }
      : {
          url: '',
          description: null,
          topics: [],
          enabled: true,
          timeoutMs: config.defaultTimeoutMs,
          maxConcurrency: config.defaultConcurrency,
        };

    if (input.url !== undefined || !base) {
      if (typeof input.url !== 'string' || input.url.length === 0) issue('url', 'Field required', 'missing');
      else if (input.url.length > 2048) issue('url', 'URL longer than 2048 characters');
      else {
        let url: URL | null = null;
        try {
          url = new URL(input.url);
        } catch {
          issue('url', 'Not a valid URL', 'url_parsing');
        }
        if (url && url.protocol !== 'https:' && url.protocol !== 'http:')
          issue('url', 'URL scheme must be http or https');
        else if (url && (url.username || url.password)) issue('url', 'URL must not carry credentials');
        else if (url) {
          try {
            await guard.resolve(url.hostname);
            fields.url = url.toString();
          } catch (err) {
            issue('url', (err as Error).message);
          }
        }
      }
    }
    if (input.description !== undefined) {
      if (input.description !== null && (typeof input.description !== 'string' || input.description.length > 500))
        issue('description', 'Must be a string of at most 500 characters');
      else fields.description = input.description;
    }
    if (input.topics !== undefined) {
      const topics = input.topics;
      if (!Array.isArray(topics) || topics.length > 100) issue('topics', 'Must be a list of at most 100 topics');
      else if (topics.some((t) => typeof t !== 'string' || t.length > 255 || !TOPIC_PATTERN.test(t)))
        issue('topics', 'Each topic is a name like workflow.completed, or a prefix ending in *');
      else fields.topics = [...new Set(topics as string[])];
    }
    if (input.enabled !== undefined) {
      if (typeof input.enabled !== 'boolean') issue('enabled', 'Must be true or false', 'bool_type');
      else fields.enabled = input.enabled;
    }
    const int = (field: 'timeoutMs' | 'maxConcurrency', min: number, max: number) => {
      const v = input[field];
      if (v === undefined) return;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
        issue(field, `Must be an integer from ${min} to ${max}`, 'int_type');
      else fields[field] = v;
    };
    int('timeoutMs', 100, config.maxTimeoutMs);
    int('maxConcurrency', 1, config.maxConcurrency);
    if (issues.length) throw new InputError(issues);
    return fields;
  }

  async function mustGet(tenantId: string, id: string): Promise<EndpointRow> {
    const row = isUuid(id) ? await endpoints.get(tenantId, id) : null;
    if (!row) throw new NotFoundError('Webhook endpoint not found');
    return row;
  }

  /** When the secrets or keys a rotation replaces stop signing. */
  function overlapEnd(overlapSeconds: number | undefined): Date {
    const overlapMs = overlapSeconds === undefined ? config.rotationOverlapMs : overlapSeconds * 1000;
    if (!Number.isInteger(overlapMs) || overlapMs < 0 || overlapMs > 30 * 24 * 3600 * 1000)
      throw InputError.of(['overlapSeconds'], 'Must be an integer from 0 to 2592000 (30 days)', 'int_type');
    return new Date(Date.now() + overlapMs);
  }

  /** The tenant's live signing keys, creating the first one on demand. */
  async function signingKeys(tenantId: string) {
    const keys = await endpoints.liveSigningKeys(tenantId);
    if (keys.length > 0) return keys;
    const key = newSigningKey();
    await endpoints.insertSigningKey(tenantId, key.kid, key.privateKey);
    return endpoints.liveSigningKeys(tenantId);
  }

  /** The tenant's public keys, for receivers verifying `v1a` signatures. */
  async function jwks(tenantId: string): Promise<Jwks> {
    const keys = await signingKeys(tenantId);
    return { keys: keys.map((k) => publicJwk(k.id, k.private_key)) };
  }

  /**
   * The keys a tenant has published, making none: the unauthenticated JWKS route serves this, so
   * a stranger naming tenants cannot make the platform write keys. Null when the tenant has none.
   */
  async function publishedJwks(tenantId: string): Promise<Jwks | null> {
    const keys = await endpoints.liveSigningKeys(tenantId);
    return keys.length > 0 ? { keys: keys.map((k) => publicJwk(k.id, k.private_key)) } : null;
  }

  return {
    /** Registers an endpoint; the answer is the only time its secret is shown besides `secret()`. */
    async create(tenantId: string, input: EndpointInput): Promise<{ endpoint: Endpoint; secret: string }> {
      const fields = await validate(input, null);
      const id = randomUUID();
      const row = await endpoints.insert(tenantId, id, fields);
      const secret = newSecret();
      await endpoints.insertSecret(tenantId, id, randomUUID(), secret);
      await signingKeys(tenantId);
      return { endpoint: toEndpoint(row), secret };
    },
    async list(tenantId: string): Promise<Endpoint[]> {
      return (await endpoints.list(tenantId)).map(toEndpoint);
    },
    async get(tenantId: string, id: string): Promise<Endpoint> {
      return toEndpoint(await mustGet(tenantId, id));
    },
    async update(tenantId: string, id: string, input: EndpointInput): Promise<Endpoint> {
      const current = toEndpoint(await mustGet(tenantId, id));
      const fields = await validate(input, current);
      const row = await endpoints.update(tenantId, id, fields);
      if (!row) throw new NotFoundError('Webhook endpoint not found');
      return toEndpoint(row);
    },
    async remove(tenantId: string, id: string): Promise<void> {
      await mustGet(tenantId, id);
      await deliveries.cancelPending(tenantId, id, 'endpoint deleted');
      await endpoints.remove(tenantId, id);
    },
    /** The current secret (the newest). */
    async secret(tenantId: string, id: string): Promise<string> {
      await mustGet(tenantId, id);
      const live = await endpoints.liveSecrets(tenantId, id);
      return live[0]!.secret;
    },
    /**
     * A new secret signs from now on; the old one keeps signing beside it for `overlapSeconds`
     * (default EVENTS_WEBHOOK_ROTATION_OVERLAP_S), so receivers can switch without a gap.
     */
    async rotateSecret(tenantId: string, id: string, overlapSeconds?: number): Promise<RotatedSecret> {
      await mustGet(tenantId, id);
      const until = overlapEnd(overlapSeconds);
      await endpoints.expireSecrets(tenantId, id, until);
      const secret = newSecret();
      await endpoints.insertSecret(tenantId, id, randomUUID(), secret);
      return { secret, previousValidUntil: until };
    },
    /** A new Ed25519 key signs from now on; the old ones stay published and signing for the overlap. */
    async rotateSigningKey(tenantId: string, overlapSeconds?: number): Promise<Jwks> {
      await endpoints.expireSigningKeys(tenantId, overlapEnd(overlapSeconds));
      const key = newSigningKey();
      await endpoints.insertSigningKey(tenantId, key.kid, key.privateKey);
      return jwks(tenantId);
    },
    jwks,
    publishedJwks,
    signingKeys,
    /** The delivery log: one entry per HTTP attempt, newest first. */
    async attempts(tenantId: string, id: string, limit = 100): Promise<DeliveryRow[]> {
      await mustGet(tenantId, id);
      return deliveries.attempts(tenantId, id, Math.min(Math.max(limit, 1), 1000));
    },
    /** Queued, delivered, failed and cancelled deliveries of the endpoint, newest first. */
    async messages(tenantId: string, id: string, limit = 100): Promise<MessageRow[]> {
      await mustGet(tenantId, id);
      return deliveries.messages(tenantId, id, Math.min(Math.max(limit, 1), 1000));
    },
    /** Sends the endpoint's delivery of an event again (delivered, failed or cancelled), with fresh attempts. */
    async redeliverEvent(tenantId: string, id: string, eventId: string): Promise<void> {
      await mustGet(tenantId, id);
      if (eventId.length === 0 || eventId.length > 255) throw new NotFoundError('No delivery of that event here');
      const outcome = await deliveries.requeueEvent(tenantId, id, eventId);
      if (outcome === null) throw new NotFoundError('No delivery of that event to this endpoint');
      if (outcome === 'pending') throw new ConflictError('That event is still queued for this endpoint');
    },
    /** Sends a failed or cancelled delivery again, with a fresh set of attempts. */
    async redeliver(tenantId: string, queueId: string): Promise<void> {
      if (!/^\d{1,18}$/.test(queueId) || !(await deliveries.requeue(tenantId, queueId)))
        throw new NotFoundError('No failed or cancelled delivery with that id');
    },
  };
}

export type EndpointService = ReturnType<typeof createEndpointService>;
