// Who-am-I and the admin routes (tenants, roles, users, service accounts). Authentication is one
// hook on all of them; the permission rules live in the services they call.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callerOf } from '../../platform/http/caller';
import type { IdentityServices } from '../../subgraphs/identity/identity.module';
import {
  AssignRoleBody,
  errors,
  MeResponse,
  RoleBody,
  RoleOut,
  RoleQuery,
  RolesResponse,
  ServiceAccountBody,
  ServiceAccountOut,
  TenantBody,
  TenantOut,
  TenantsResponse,
  UserBody,
  UserOut,
  UserParams,
  UsersQuery,
  UsersResponse,
  type AssignRoleBodyT,
  type RoleBodyT,
  type RoleQueryT,
  type ServiceAccountBodyT,
  type TenantBodyT,
  type UserBodyT,
  type UserParamsT,
  type UsersQueryT,
} from './identity.schemas';
import { roleOut, tenantOut, userOut } from './identity.views';

const security = [{ bearerAuth: [] }];
const adminErrors = { 401: errors[401], 403: errors[403], 422: errors[422] };
const conflict = { 409: { type: 'object', properties: { detail: { type: 'string' } }, description: 'Already exists' } };
const notFound = {
  404: { type: 'object', properties: { detail: { type: 'string' } }, description: 'Not found (or in another tenant)' },
};

/**
 * The spec's `POST /v1/roles` has no body, so an absent body counts as `{}`. `scopes=a&scopes=b`
 * arrives as an array, `scopes=a` as a string and `scopes=a,b` as one string: all become a list.
 */
async function prepareRoleRequest(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
  const query = request.query as Record<string, unknown>;
  const raw = query.scopes;
  if (raw === undefined) return;
  const list = (Array.isArray(raw) ? raw : [raw])
    .flatMap((s) => String(s).split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
  query.scopes = list;
}

export function registerAdminRoutes(app: FastifyInstance, services: IdentityServices): void {
  app.get(
    '/v1/me',
    {
      schema: { tags: ['users'], summary: 'The caller', security, response: { 200: MeResponse, 401: errors[401] } },
    },
    async (request) => {
      const me = await services.users.me(callerOf(request));
      return { username: me.username, tenant_id: me.tenantId, roles: me.roles, scopes: me.scopes, email: me.email };
    },
  );

  app.get(
    '/v1/tenants',
    {
      schema: {
        tags: ['tenants'],
        summary: 'List tenants (admin)',
        description: "A platform admin (admin of tenant `default`) sees every tenant; a tenant's admin sees its own.",
        security,
        response: { 200: TenantsResponse, ...adminErrors },
      },
    },
    async (request) => ({
      tenants: (await services.tenants.list(callerOf(request))).map((t) => ({ id: t.id, name: t.name })),
    }),
  );

  app.post<{ Body: TenantBodyT }>(
    '/v1/tenants',
    {
      schema: {
        tags: ['tenants'],
        summary: 'Create a tenant (platform admin)',
        security,
        body: TenantBody,
        response: { 201: TenantOut, ...adminErrors, ...conflict },
      },
    },
    async (request, reply) => {
      const tenant = await services.tenants.create(callerOf(request), {
        id: request.body.id,
        name: request.body.name,
        metadata: request.body.metadata,
      });
      return reply.code(201).send(tenantOut(tenant));
    },
  );

  app.get(
    '/v1/roles',
    {
      schema: { tags: ['roles'], summary: 'List roles', security, response: { 200: RolesResponse, 401: errors[401] } },
    },
    async (request) => ({ roles: (await services.roles.list(callerOf(request))).map(roleOut) }),
  );

  app.post<{ Querystring: RoleQueryT; Body: RoleBodyT | undefined }>(
    '/v1/roles',
    {
      config: { inputLocation: 'query' },
      preValidation: prepareRoleRequest,
      schema: {
        tags: ['roles'],
        summary: 'Create a role (admin)',
        description:
          'Query `role_name` (at most 100 characters); optional scopes as repeated `scopes` query parameters, comma-separated, or a JSON body `{scopes, description}`. 409 when the role exists.',
        security,
        querystring: RoleQuery,
        body: RoleBody,
        response: { 200: RoleOut, ...adminErrors, ...conflict },
      },
    },
    async (request) =>
      roleOut(
        await services.roles.create(callerOf(request), {
          name: request.query.role_name,
          scopes: [...(request.query.scopes ?? []), ...(request.body?.scopes ?? [])],
          description: request.body?.description ?? request.query.description ?? null,
          tenantId: request.query.tenant_id,
        }),
      ),
  );

  app.get<{ Querystring: UsersQueryT }>(
    '/v1/users',
    {
      // The domain's page arguments arrive as `limit` and `cursor` here.
      config: { inputNames: { first: 'limit', after: 'cursor' } },
      schema: {
        tags: ['users'],
        summary: 'List users (admin, paginated)',
        description:
          "Users of the caller's tenant ordered by username; a platform admin may pass `tenant_id`. Pass `next_cursor` back as `cursor` for the next page.",
        security,
        querystring: UsersQuery,
        response: { 200: UsersResponse, ...adminErrors },
      },
    },
    async (request) => {
      const page = await services.users.list(callerOf(request), {
        first: request.query.limit,
        after: request.query.cursor,
        tenantId: request.query.tenant_id,
      });
      return { users: page.users.map(userOut), next_cursor: page.nextCursor };
    },
  );

  app.post<{ Body: UserBodyT }>(
    '/v1/users',
    {
      schema: {
        tags: ['users'],
        summary: 'Create a user (admin)',
        description:
          "A tenant's admin creates users in its own tenant; a platform admin in any tenant (`tenant_id`). Roles default to `user`.",
        security,
        body: UserBody,
        response: { 201: UserOut, ...adminErrors, ...conflict, ...notFound },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const user = await services.users.create(callerOf(request), {
        username: b.username,
        password: b.password,
        email: b.email ?? null,
        tenantId: b.tenant_id,
        roles: b.roles,
        isVerified: b.is_verified,
      });
      return reply.code(201).send(userOut(user));
    },
  );

  app.post<{ Params: UserParamsT; Body: AssignRoleBodyT }>(
    '/v1/users/:user_id/roles',
    {
      schema: {
        tags: ['users'],
        summary: 'Assign a role to a user (admin)',
        security,
        params: UserParams,
        body: AssignRoleBody,
        response: { 200: UserOut, ...adminErrors, ...conflict, ...notFound },
      },
    },
    async (request) =>
      userOut(
        await services.users.assignRole(callerOf(request), {
          userId: request.params.user_id,
          roleName: request.body.role_name,
        }),
      ),
  );

  app.post<{ Body: ServiceAccountBodyT }>(
    '/v1/service-accounts',
    {
      schema: {
        tags: ['service-accounts'],
        summary: 'Create a service account (platform admin)',
        description:
          'Returns `client_id` and `client_secret`; the secret is shown only here. Tokens come from `POST /v1/auth/service-token`.',
        security,
        body: ServiceAccountBody,
        response: { 201: ServiceAccountOut, ...adminErrors, ...conflict, ...notFound },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const account = await services.serviceAccounts.create(callerOf(request), {
        name: b.name,
        scopes: b.scopes,
        tenantId: b.tenant_id,
        description: b.description,
      });
      return reply.code(201).send({
        id: account.id,
        client_id: account.clientId,
        client_secret: account.clientSecret,
        tenant_id: account.tenantId,
        roles: account.roles,
        scopes: account.scopes,
      });
    },
  );
}
