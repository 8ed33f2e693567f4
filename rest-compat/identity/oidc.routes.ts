// The OpenID Connect provider's doors: oidc-provider's own endpoints (discovery, JWKS, authorize,
// token, userinfo, introspection, revocation) mounted under /oidc, the sign-in pages it sends
// browsers to, client registration (/v1/oidc/clients) and key rotation (/v1/oidc/keys/rotate).
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { callerOf } from '../../platform/http/caller';
import { OIDC_MOUNT_PATH } from '../../subgraphs/identity/oidc/oidc.config';
import type { InteractionOutcome } from '../../subgraphs/identity/oidc/oidc-interaction.service';
import type { OidcServices } from '../../subgraphs/identity/oidc/oidc.module';
import type { OidcClientRecord } from '../../subgraphs/identity/oidc/oidc.types';
import { errors } from './identity.schemas';
import {
  ClientBody,
  ClientCreated,
  ClientList,
  ClientListQuery,
  ConsentForm,
  InteractionParams,
  LoginForm,
  MfaForm,
  RotateBody,
  Rotated,
  type ClientBodyT,
  type ClientListQueryT,
  type ConsentFormT,
  type InteractionParamsT,
  type LoginFormT,
  type MfaFormT,
  type RotateBodyT,
} from './oidc.schemas';
import { renderInteraction } from './oidc.views';

const security = [{ bearerAuth: [] }];
const hidden = { hide: true };

function clientOut(c: OidcClientRecord) {
  return {
    client_id: c.clientId,
    tenant_id: c.tenantId,
    name: c.name,
    redirect_uris: c.redirectUris,
    confidential: c.sealedSecret !== null,
    first_party: c.firstParty,
    created_by: c.createdBy,
    created_at: c.createdAt.toISOString(),
  };
}

/** An origin as a CSP source expression (origins never hold `;`, `,` or spaces; checked anyway). */
const cspSource = (origin: string) => origin.replace(/[;,\s]/g, '');

function answer(reply: FastifyReply, outcome: InteractionOutcome) {
  if ('redirect' in outcome) return reply.redirect(outcome.redirect, 303);
  const status = 'status' in outcome && outcome.status ? outcome.status : 200;
  // The pages must not be framed (clickjacking a sign-in form) nor cached.
  return reply
    .code(status)
    .header('Content-Type', 'text/html; charset=utf-8')
    .header('Cache-Control', 'no-store')
    .header('X-Frame-Options', 'DENY')
    .header(
      'Content-Security-Policy',
      `default-src 'none'; form-action ${["'self'", ...outcome.formTargets.map(cspSource)].join(' ')}; frame-ancestors 'none'`,
    )
    .send(renderInteraction(OIDC_MOUNT_PATH, outcome));
}

const io = (request: FastifyRequest, reply: FastifyReply) => ({ req: request.raw, res: reply.raw });

export async function registerOidcRoutes(app: FastifyInstance, oidc: OidcServices): Promise<void> {
  // oidc-provider parses its own bodies: in this scope nothing reads the request stream first.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scope.route({
      method: ['GET', 'POST', 'OPTIONS', 'DELETE'],
      url: `${OIDC_MOUNT_PATH}/*`,
      config: { auth: 'public' },
      schema: hidden,
      async handler(request, reply) {
        const { handler } = await oidc.host.get();
        reply.hijack();
        const req = request.raw as IncomingMessage & { originalUrl?: string };
        req.originalUrl = req.url;
        req.url = (req.url ?? '/').slice(OIDC_MOUNT_PATH.length) || '/';
        handler(req, reply.raw);
      },
    });
  });

  app.get<{ Params: InteractionParamsT }>(
    `${OIDC_MOUNT_PATH}/interaction/:uid`,
    { config: { auth: 'public' }, schema: { ...hidden, params: InteractionParams } },
    async (request, reply) => answer(reply, await oidc.interactions.show(io(request, reply))),
  );
  app.post<{ Params: InteractionParamsT; Body: LoginFormT }>(
    `${OIDC_MOUNT_PATH}/interaction/:uid/login`,
    { config: { auth: 'public' }, schema: { ...hidden, params: InteractionParams, body: LoginForm } },
    async (request, reply) =>
      answer(reply, await oidc.interactions.login(callerOf(request), io(request, reply), request.body)),
  );
  app.post<{ Params: InteractionParamsT; Body: MfaFormT }>(
    `${OIDC_MOUNT_PATH}/interaction/:uid/mfa`,
    { config: { auth: 'public' }, schema: { ...hidden, params: InteractionParams, body: MfaForm } },
    async (request, reply) =>
      answer(
        reply,
        await oidc.interactions.secondFactor(callerOf(request), io(request, reply), {
          mfaToken: request.body.mfa_token,
          code: request.body.code,
          ...(request.body.method ? { method: request.body.method } : {}),
        }),
      ),
  );
  app.post<{ Params: InteractionParamsT; Body: ConsentFormT }>(
    `${OIDC_MOUNT_PATH}/interaction/:uid/consent`,
    { config: { auth: 'public' }, schema: { ...hidden, params: InteractionParams, body: ConsentForm } },
    async (request, reply) =>
      answer(reply, await oidc.interactions.consent(io(request, reply), request.body.decision === 'allow')),
  );

  app.post<{ Body: ClientBodyT }>(
    '/v1/oidc/clients',
    {
      schema: {
        tags: ['oidc'],
        summary: "Register an OpenID Connect client for the caller's tenant (admin)",
        security,
        body: ClientBody,
        response: { 201: ClientCreated, 401: errors[401], 403: errors[403], 422: errors[422] },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const { client, secret } = await oidc.clients.register(callerOf(request), {
        name: b.name,
        redirectUris: b.redirect_uris,
        confidential: b.confidential ?? false,
        firstParty: b.first_party ?? false,
        ...(b.tenant_id ? { tenantId: b.tenant_id } : {}),
      });
      return reply.code(201).send({ ...clientOut(client), ...(secret ? { client_secret: secret } : {}) });
    },
  );
  app.get<{ Querystring: ClientListQueryT }>(
    '/v1/oidc/clients',
    {
      schema: {
        tags: ['oidc'],
        summary: "The tenant's OpenID Connect clients (admin)",
        security,
        querystring: ClientListQuery,
        response: { 200: ClientList, 401: errors[401], 403: errors[403] },
      },
    },
    async (request) => ({
      clients: (await oidc.clients.list(callerOf(request), request.query.tenant_id)).map(clientOut),
    }),
  );
  app.post<{ Body: RotateBodyT }>(
    '/v1/oidc/keys/rotate',
    {
      schema: {
        tags: ['oidc'],
        summary: 'Rotate the signing key (platform operator); `immediate` drops the old keys at once',
        security,
        body: RotateBody,
        response: { 200: Rotated, 401: errors[401], 403: errors[403] },
      },
    },
    async (request) => {
      const key = await oidc.keys.rotate(callerOf(request), { immediate: request.body?.immediate ?? false });
      return { kid: key.kid, alg: key.alg, activates_at: key.activatesAt.toISOString() };
    },
  );
}
