// Multipart GraphQL uploads (graphql-upload-ts), which Apollo's gateway does not forward
// (measured, DESIGN.md): the router parses the request, checks the operation like any other
// (validation, limits, @authenticated/@requiresScopes), picks the subgraph that owns its root
// fields, and streams the operation and files to that subgraph. An upload operation must be
// answerable by one subgraph alone; no subgraph takes uploads yet (tests use a fixture).
import {
  getOperationAST,
  GraphQLError,
  Kind,
  parse,
  validate,
  type DocumentNode,
  type GraphQLFormattedError,
} from 'graphql';
import { processRequest, type GraphQLOperation } from 'graphql-upload-ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import type { SupergraphModel } from '../supergraph/supergraph.model';
import { sanitizeError } from '../graphql/error-format';
import { guardOperation, type GuardLimits } from '../graphql/operation-guard';
import { subgraphFailure } from '../http/subgraph-failure';
import { forwardedHeaders, type RouterContext } from '../router.context';
import { extractUploads, multipartBody } from './multipart.body';

export interface UploadForwarderOptions {
  model(): SupergraphModel;
  resolveUrl(subgraph: string): string;
  limits: GuardLimits;
  maxFileSize: number;
  maxFiles: number;
  /** Development only: masked errors carry their original message as `extensions.detail`. */
  exposeErrorDetails?: boolean;
}

export async function forwardUpload(
  options: UploadForwarderOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  context: RouterContext,
): Promise<FastifyReply> {
  let parsed: GraphQLOperation | GraphQLOperation[];
  try {
    parsed = await processRequest(request.raw, reply.raw, {
      maxFileSize: options.maxFileSize,
      maxFiles: options.maxFiles,
    });
  } catch (err) {
    const status = (err as { status?: number }).status ?? 400;
    return sendErrors(reply, status, [
      new GraphQLError((err as Error).message, {
        extensions: { code: status === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST' },
      }),
    ]);
  }
  if (Array.isArray(parsed))
    return sendErrors(reply, 400, [
      new GraphQLError('Batched multipart requests are not supported', { extensions: { code: 'BAD_REQUEST' } }),
    ]);

  const model = options.model();
  let document: DocumentNode;
  try {
    document = parse(parsed.query);
  } catch (err) {
    return sendErrors(reply, 400, [
      new GraphQLError((err as Error).message, { extensions: { code: 'GRAPHQL_PARSE_FAILED' } }),
    ]);
  }
  const invalid = validate(model.apiSchema, document);
  if (invalid.length)
    return sendErrors(
      reply,
      400,
      invalid.map(
        (e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }),
      ),
    );
  const operation = getOperationAST(document, parsed.operationName ?? undefined);
  if (!operation)
    return sendErrors(reply, 400, [
      new GraphQLError('Could not determine the operation to run', { extensions: { code: 'BAD_REQUEST' } }),
    ]);
  const denied = guardOperation(
    model.apiSchema,
    model.authRules,
    options.limits,
    document,
    operation,
    parsed.variables ?? {},
    context.auth,
  );
  if (denied) return sendErrors(reply, (denied.extensions.http as { status: number }).status, [denied]);

  const rootType = model.apiSchema.getRootType(operation.operation)!.name;
  const owners = new Set(
    operation.selectionSet.selections.flatMap((s) =>
      s.kind === Kind.FIELD && !s.name.value.startsWith('__') ? [model.ownerOf(rootType, s.name.value) ?? '?'] : [],
    ),
  );
  const [owner] = [...owners];
  if (owners.size !== 1 || !owner || owner === '?') {
    return sendErrors(reply, 400, [
      new GraphQLError('An upload operation must select root fields of a single subgraph', {
        extensions: { code: 'BAD_REQUEST' },
      }),
    ]);
  }

  const { operation: stripped, uploads } = extractUploads(parsed);
  const { contentType, body } = multipartBody(stripped, uploads);
  try {
    const res = await fetch(options.resolveUrl(owner), {
      method: 'POST',
      headers: { ...forwardedHeaders(context), 'content-type': contentType, 'apollo-require-preflight': 'true' },
      body: Readable.from(body) as unknown as NonNullable<RequestInit['body']>,
      duplex: 'half',
    } as RequestInit);
    // The subgraph's answer is read, not relayed: only a GraphQL response goes back, its errors
    // reduced to message and code like every other error the router sends.
    const text = await res.text();
    const answer = graphQLResponse(text);
    if (!answer) {
      request.log.warn({ subgraph: owner, status: res.status }, 'upload subgraph answered without a GraphQL response');
      return sendErrors(reply, res.status === 401 || res.status === 403 ? res.status : 502, [
        subgraphFailure(owner, undefined, res.status),
      ]);
    }
    const errors = answer.errors?.map((e) =>
      sanitizeError(
        { ...e, extensions: { ...e.extensions, serviceName: owner } },
        { exposeDetails: options.exposeErrorDetails },
      ),
    );
    return reply
      .code(res.status)
      .header('content-type', 'application/json')
      .send(errors ? { ...answer, errors } : answer);
  } catch (err) {
    request.log.warn({ err: (err as Error).message, subgraph: owner }, 'upload forwarding failed');
    return sendErrors(reply, 502, [
      new GraphQLError(`Subgraph '${owner}' could not take the upload`, { extensions: { code: 'BAD_GATEWAY' } }),
    ]);
  }
}

/** A GraphQL response body ({data} and/or {errors}), or undefined for anything else. */
function graphQLResponse(text: string): { data?: unknown; errors?: GraphQLFormattedError[] } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const body = parsed as { data?: unknown; errors?: unknown };
  if (!('data' in body) && !('errors' in body)) return undefined;
  if (body.errors !== undefined && !Array.isArray(body.errors)) return undefined;
  return {
    ...(body.data !== undefined ? { data: body.data } : {}),
    ...(body.errors ? { errors: body.errors as GraphQLFormattedError[] } : {}),
  };
}

function sendErrors(reply: FastifyReply, status: number, errors: GraphQLError[]): FastifyReply {
  const body = errors.map((e) => {
    const { http: _http, ...extensions } = e.extensions as Record<string, unknown>;
    return { ...e.toJSON(), extensions };
  });
  return reply.code(status).header('content-type', 'application/json').send({ errors: body });
}
