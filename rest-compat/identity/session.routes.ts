// Sign-in sessions (refresh-token families): the caller's own, and (admin) a user's. Thin
// adapters over subgraphs/identity/session.service.ts.
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../platform/http/caller';
import type { IdentityServices } from '../../subgraphs/identity/identity.module';
import type { SessionView } from '../../subgraphs/identity/session.service';
import { errors, UserParams, type UserParamsT } from './identity.schemas';
import {
  RevokedResponse,
  SessionParams,
  SessionsResponse,
  UserSessionParams,
  type SessionParamsT,
  type UserSessionParamsT,
} from './mfa.schemas';

const security = [{ bearerAuth: [] }];
const notFound = {
  404: { type: 'object', properties: { detail: { type: 'string' } }, description: 'Not found (or not yours)' },
};
const noContent = { 204: { type: 'null', description: 'Ended' } };

export function sessionOut(s: SessionView) {
  return {
    id: s.id,
    created_at: s.createdAt.toISOString(),
    last_used_at: s.lastUsedAt.toISOString(),
    expires_at: s.expiresAt.toISOString(),
    amr: s.amr,
    current: s.current,
  };
}

export function registerSessionRoutes(app: FastifyInstance, services: IdentityServices): void {
  const { sessions } = services;

  app.get(
    '/v1/auth/sessions',
    {
      schema: {
        tags: ['sessions'],
        summary: 'Your sign-in sessions',
        description:
          'One per login still able to refresh (a refresh-token family), newest first; `current` marks the one your token came from.',
        security,
        response: { 200: SessionsResponse, 401: errors[401] },
      },
    },
    async (request) => ({ sessions: (await sessions.list(callerOf(request))).map(sessionOut) }),
  );

  app.delete<{ Params: SessionParamsT }>(
    '/v1/auth/sessions/:session_id',
    {
      schema: {
        tags: ['sessions'],
        summary: 'End one of your sessions',
        description: 'Revokes its refresh tokens. Access tokens already issued stay valid until they expire.',
        security,
        params: SessionParams,
        response: { ...noContent, ...errors, ...notFound },
      },
    },
    async (request, reply) => {
      await sessions.revoke(callerOf(request), request.params.session_id);
      return reply.code(204).send();
    },
  );

  app.delete(
    '/v1/auth/sessions',
    {
      schema: {
        tags: ['sessions'],
        summary: 'End all your sessions (sign out everywhere)',
        security,
        response: { 200: RevokedResponse, ...errors },
      },
    },
    async (request) => ({ revoked_count: await sessions.revokeAll(callerOf(request)) }),
  );

  app.get<{ Params: UserParamsT }>(
    '/v1/users/:user_id/sessions',
    {
      schema: {
        tags: ['sessions'],
        summary: "A user's sessions (admin)",
        security,
        params: UserParams,
        response: { 200: SessionsResponse, ...errors, ...notFound },
      },
    },
    async (request) => ({
      sessions: (await sessions.list(callerOf(request), request.params.user_id)).map(sessionOut),
    }),
  );

  app.delete<{ Params: UserParamsT }>(
    '/v1/users/:user_id/sessions',
    {
      schema: {
        tags: ['sessions'],
        summary: "End all of a user's sessions (admin)",
        security,
        params: UserParams,
        response: { 200: RevokedResponse, ...errors, ...notFound },
      },
    },
    async (request) => ({ revoked_count: await sessions.revokeAll(callerOf(request), request.params.user_id) }),
  );

  app.delete<{ Params: UserSessionParamsT }>(
    '/v1/users/:user_id/sessions/:session_id',
    {
      schema: {
        tags: ['sessions'],
        summary: "End one of a user's sessions (admin)",
        security,
        params: UserSessionParams,
        response: { ...noContent, ...errors, ...notFound },
      },
    },
    async (request, reply) => {
      await sessions.revoke(callerOf(request), request.params.session_id, request.params.user_id);
      return reply.code(204).send();
    },
  );
}
