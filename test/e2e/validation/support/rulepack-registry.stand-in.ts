// A stand-in for the rule-pack registry (8091) while the real one is built in parallel: a small
// Fastify server speaking exactly the wire contract of platform/clients/rulepack-registry.client.ts
// (GET /rulepacks/:id, GET /rulepacks/:id/versions/:version, GET /.well-known/rulepack-keys.json)
// and signing certified packs with a REAL Ed25519 key pair, so tampered signatures, foreign keys,
// deprecated, draft, unknown and unreachable are all real cases for the validation service.
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import canonicalize from 'canonicalize';
import Fastify, { type FastifyInstance } from 'fastify';
import type { RulePackStatus, RulePackVersionView } from '../../../../platform/clients/rulepack-registry.client';

export interface Seen {
  path: string;
  authorization?: string;
  tenant?: string;
}

export interface PackSpec {
  pack_id: string;
  version: string;
  status: RulePackStatus;
  pack: Record<string, unknown>;
  owner_tenant?: string;
  replacement?: { pack_id: string; version: string } | null;
  /** How the served version lies: content changed after signing, signed by another key, or a key id not published. */
  tamper?: 'content' | 'foreign-key' | 'unknown-kid' | 'no-signature';
}

export interface RulePackRegistryStandIn {
  url: string;
  kid: string;
  seen: Seen[];
  put(spec: PackSpec): RulePackVersionView;
  /** While true, every connection is cut without an answer (the registry is unreachable). */
  outage: boolean;
  close(): Promise<void>;
}

const canonical = (value: unknown) => Buffer.from(canonicalize(value)!, 'utf8');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function signer(privateKey: KeyObject) {
  return (pack: unknown) => sign(null, canonical(pack), privateKey).toString('base64url');
}

export async function startRulePackRegistry(): Promise<RulePackRegistryStandIn> {
  const own = generateKeyPairSync('ed25519');
  const foreign = generateKeyPairSync('ed25519');
  const kid = 'standin-key-1';
  const jwk = own.publicKey.export({ format: 'jwk' }) as { kty: 'OKP'; crv: 'Ed25519'; x: string };
  const versions = new Map<string, RulePackVersionView[]>();
  const seen: Seen[] = [];
  const app: FastifyInstance = Fastify();
  const state = { outage: false };

  app.addHook('onRequest', async (request) => {
    if (state.outage) {
      request.raw.socket.destroy();
      return;
    }
    const tenant = request.headers['x-tenant-id'];
    seen.push({
      path: request.url,
      authorization: request.headers.authorization,
      tenant: typeof tenant === 'string' ? tenant : undefined,
    });
  });

  // Drafts and packs in review: their owner tenant only (anyone else gets 404, as for unknown ids).
  const visible = (v: RulePackVersionView, tenant: string | undefined) =>
    v.status === 'certified' || v.status === 'deprecated' || v.owner_tenant === tenant;

  app.get<{ Params: { id: string } }>('/rulepacks/:id', async (request, reply) => {
    const newest = (versions.get(request.params.id) ?? []).filter((v) => v.status === 'certified').at(-1);
    return newest ?? reply.code(404).send({ detail: 'Rule pack not found' });
  });
  app.get<{ Params: { id: string; version: string } }>('/rulepacks/:id/versions/:version', async (request, reply) => {
    const tenant = request.headers['x-tenant-id'] as string | undefined;
    const found = (versions.get(request.params.id) ?? []).find(
      (v) => v.version === request.params.version && visible(v, tenant),
    );
    return found ?? reply.code(404).send({ detail: 'Rule pack version not found' });
  });
  app.get('/.well-known/rulepack-keys.json', async () => ({ keys: [{ ...jwk, kid, use: 'sig', alg: 'EdDSA' }] }));

  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const signOwn = signer(own.privateKey);
  const signForeign = signer(foreign.privateKey);

  return {
    url,
    kid,
    seen,
    get outage() {
      return state.outage;
    },
    set outage(v: boolean) {
      state.outage = v;
    },
    put(spec) {
      const signed = spec.status === 'certified' || spec.status === 'deprecated';
      let pack = spec.pack;
      let signature = signed ? signOwn(pack) : null;
      let keyId: string | null = signed ? kid : null;
      if (spec.tamper === 'content') {
        // Signed as submitted, then one rule quietly dropped (sha256 updated to match, so only the signature can tell).
        pack = { ...pack, rules: (pack.rules as unknown[]).slice(1) };
      } else if (spec.tamper === 'foreign-key') {
        signature = signForeign(pack);
      } else if (spec.tamper === 'unknown-kid') {
        keyId = 'nobody-published-this';
      } else if (spec.tamper === 'no-signature') {
        signature = null;
        keyId = null;
      }
      const view: RulePackVersionView = {
        pack_id: spec.pack_id,
        version: spec.version,
        status: spec.status,
        pack,
        sha256: sha256(canonical(pack)),
        owner_tenant: spec.owner_tenant ?? 'default',
        author: 'author-1',
        reviewers: signed ? ['reviewer-1'] : [],
        submitted_at: '2026-01-01T00:00:00Z',
        certified_at: signed ? '2026-01-02T00:00:00Z' : null,
        signature,
        key_id: keyId,
        deprecated_at: spec.status === 'deprecated' ? '2026-02-01T00:00:00Z' : null,
        replacement: spec.replacement ?? null,
      };
      const list = (versions.get(spec.pack_id) ?? []).filter((v) => v.version !== spec.version);
      list.push(view);
      versions.set(spec.pack_id, list);
      return view;
    },
    async close() {
      state.outage = false;
      await app.close();
    },
  };
}
