// Stand-ins for the workflow tests: an HTTP callee for `http` action steps that records every
// call with its Idempotency-Key and acts once per key (as a well-behaved callee does), a packs
// registry and a validation service in memory, and small request helpers.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServiceCallError, type ServiceCallContext } from '../../../platform/clients/service-request';
import type { PackVersionView } from '../../../platform/clients/packs-registry.client';
import type { ValidateRequest, ValidateResponse } from '../../../platform/clients/validation.client';

export interface CalleeCall {
  method: string;
  path: string;
  key: string | undefined;
  tenant: string | undefined;
  body: unknown;
}

export interface Callee {
  url: string;
  calls: CalleeCall[];
  /** Effects done, one per distinct (method, path, key). */
  effects: Map<string, number>;
  /** Per path (or `METHOD /path`): answer this status (the next `times` calls, or always). */
  failWith(path: string, status: number, times?: number): void;
  /** Per path: hold the answer until `release()` (the test kills the process meanwhile). */
  hold(path: string): { arrived: Promise<void>; release(): void };
  close(): Promise<void>;
}

export async function startCallee(): Promise<Callee> {
  const calls: CalleeCall[] = [];
  const effects = new Map<string, number>();
  const failures = new Map<string, { status: number; times: number }>();
  const holds = new Map<string, { arrived: () => void; released: Promise<void> }>();
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (d) => (text += d));
    req.on('end', async () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const key = req.headers['idempotency-key'] as string | undefined;
      calls.push({
        method: req.method!,
        path,
        key,
        tenant: req.headers['x-tenant-id'] as string | undefined,
        body: text ? JSON.parse(text) : undefined,
      });
      const hold = holds.get(path);
      if (hold) {
        hold.arrived();
        await hold.released;
      }
      const f = failures.get(`${req.method} ${path}`) ?? failures.get(path);
      if (f && f.times > 0) {
        f.times -= 1;
        res
          .writeHead(f.status, { 'content-type': 'application/json' })
          .end(JSON.stringify({ detail: 'stand-in failure' }));
        return;
      }
      const effect = `${req.method} ${path} ${key}`;
      if (!effects.has(effect)) effects.set(effect, effects.size + 1);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ ok: true, path, effect: effects.get(effect) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    effects,
    failWith: (path, status, times = Number.MAX_SAFE_INTEGER) => failures.set(path, { status, times }),
    hold(path) {
      let arrived!: () => void;
      let release!: () => void;
      const arrivedP = new Promise<void>((r) => (arrived = r));
      const released = new Promise<void>((r) => (release = r));
      holds.set(path, { arrived, released });
      return {
        arrived: arrivedP,
        release: () => {
          holds.delete(path);
          release();
        },
      };
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A packs registry in memory: `put` a workflow pack version; `get` answers as the real one's client. */
export class PacksStandIn {
  readonly entries = new Map<string, PackVersionView>();
  readonly seen: ServiceCallContext[] = [];
  down = false;

  put(
    content: Record<string, unknown>,
    status: PackVersionView['status'] = 'certified',
    replacement: PackVersionView['replacement'] = null,
  ): void {
    const m = content.metadata as { pack_id: string; version: string };
    this.entries.set(`${m.pack_id}@${m.version}`, {
      pack_id: m.pack_id,
      version: m.version,
      kind: 'workflow',
      status,
      owner_tenant: 'default',
      author: 'author',
      reviewers: [],
      submitted_at: new Date().toISOString(),
      certified_at: null,
      deprecated_at: null,
      replacement,
      dependencies: { rule_packs: [], schemas: [], workflow_packs: [] },
      artifact: {
        format: 'json',
        sha256: null,
        pointer: { service: 'packs-registry', pack_id: m.pack_id, version: m.version },
        content,
        source: null,
      },
    });
  }

  async get(context: ServiceCallContext, packId: string, version?: string): Promise<PackVersionView> {
    this.seen.push(context);
    if (this.down) throw new ServiceCallError('unreachable', undefined, undefined);
    const hits = [...this.entries.values()].filter(
      (e) => e.pack_id === packId && (version ? e.version === version : e.status === 'certified'),
    );
    const hit = hits.at(-1);
    if (!hit) throw new ServiceCallError('not found', 404, { detail: 'not found' });
    return hit;
  }
}

/** A validation service in memory: a payload with `invalid: true` fails; `down` answers 503. */
export class ValidationStandIn {
  readonly seen: { context: ServiceCallContext; request: ValidateRequest }[] = [];
  down = false;

  async validate(context: ServiceCallContext, request: ValidateRequest): Promise<ValidateResponse> {
    this.seen.push({ context, request });
    if (this.down) throw new ServiceCallError('validation answered 503', 503, { detail: 'down' });
    const invalid = (request.payload as { invalid?: boolean } | undefined)?.invalid === true;
    return {
      result: {
        valid: !invalid,
        errors: invalid ? [{ rule_id: 'r1' }] : [],
        warnings: [],
        rule_results: {},
        metadata: {},
      },
      correlation_id: context.correlationId ?? '',
      execution_time_ms: 1,
      rule_pack_version: request.rule_pack_version ?? '1.0.0',
      rule_pack_id: request.rule_pack_id,
    };
  }
}

export async function call(
  url: string,
  init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** An operational pack of `http` steps against the callee (each with an http compensation). */
export function httpPack(
  packId: string,
  callee: string,
  steps: string[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    metadata: { pack_id: packId, version: '1.0.0', workflow_type: 'operational', name: packId },
    steps: steps.map((s) => ({
      step: s,
      type: 'action',
      action: 'http',
      compensation: 'http',
      parameters: { url: `${callee}/${s}` },
    })),
    ...extra,
  };
}
