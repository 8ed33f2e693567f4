// The validation service's documented REST routes (spec 03, port 8083) as thin adapters over
// subgraphs/validation's service: each handler builds the Caller, calls one service function and
// shapes the JSON (snake_case, the spec's names). Authentication is the kernel's hook on the
// whole prefix; health routes come from the kernel too.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerToken } from '../../platform/auth/jwt';
import { callerOf } from '../../platform/http/caller';
import { parseJsonStrict } from '../../platform/http/json-strict';
import type { ValidationService } from '../../subgraphs/validation/validation.service';
import type { ValidationRun } from '../../subgraphs/validation/validation.types';
import { validateAnswerJson } from './validate.answer-json';
import {
  responses,
  SchemaParams,
  SchemasQuery,
  SchemasResponse,
  SchemaVersionQuery,
  SchemaVersionResponse,
  ServiceInfo,
  ValidateBody,
  ValidateResponse,
} from './validation.schemas';

export interface ValidationRoutesOptions {
  version: string;
  /** VALIDATION_MAX_PAYLOAD_BYTES: the body limit of these routes (413 above it). */
  maxPayloadBytes: number;
}

export function runJson(run: ValidationRun) {
  return {
    result: run.result,
    correlation_id: run.correlationId,
    execution_time_ms: run.executionTimeMs,
    rule_pack_version: run.rulePackVersion,
    rule_pack_id: run.rulePackId,
    pack_source: run.packSource,
    pack_sha256: run.packSha256,
    input_sha256: run.inputSha256,
  };
}

const forwarding = (request: FastifyRequest) => ({ token: bearerToken(request.headers.authorization) });

export function registerValidationRoutes(
  routes: FastifyInstance,
  service: ValidationService,
  options: ValidationRoutesOptions,
): void {
  // Payloads may be far larger than the platform's other bodies (a CSV export is one long
  // string), so this prefix parses JSON with its own size and string-length limit; the kernel's
  // guard (depth, UTF-8, NUL, prototype keys) is otherwise the same.
  const limits = {
    ...routes.inputLimits,
    maxBytes: options.maxPayloadBytes,
    maxStringLength: Math.max(routes.inputLimits.maxStringLength, options.maxPayloadBytes),
  };
  routes.removeContentTypeParser('application/json');
  routes.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: options.maxPayloadBytes },
    (_request, body: Buffer, done) => {
      try {
        done(null, body.length === 0 ? undefined : parseJsonStrict(body, limits));
      } catch (err) {
        done(err as Error, undefined);
      }
    },
  );

  routes.get(
    '/',
    {
      config: { auth: 'public' },
      schema: { tags: ['validation'], summary: 'Service metadata', response: { 200: ServiceInfo } },
    },
    async () => ({
      service: 'validation',
      version: options.version,
      description:
        'Runs certified or inline rule packs over JSON, CSV and XML payloads; every run is audited in the ledger',
      endpoints: [
        'POST /validate',
        'GET /schemas',
        'GET /schemas/{name}',
        'GET /healthz',
        'GET /readyz',
        'GET /livez',
        'POST /graphql',
      ],
    }),
  );

  routes.post<{ Body: ValidateBody }>(
    '/validate',
    {
      bodyLimit: options.maxPayloadBytes,
      schema: {
        tags: ['validation'],
        summary: 'Run a rule pack (a certified registry pack, or an inline one) over a payload',
        description:
          '409 when the registry pack is not certified, is deprecated (the detail names the replacement) or fails signature verification; ' +
          '404 for an unknown pack or version; 503 when the rule-pack registry is unreachable; 413 above VALIDATION_MAX_PAYLOAD_BYTES.',
        body: ValidateBody,
        response: responses(ValidateResponse),
      },
      // The schema documents the answer; runJson already builds exactly its shape, and most of it
      // is the engine's open objects (rule_results: one entry per rule), which the compiled
      // serializer stringified key by key. validateAnswerJson writes the same text as
      // JSON.stringify in about half its time (docs/benchmarks.md, issue 35, branch val).
      serializerCompiler: () => validateAnswerJson,
    },
    async (request) => {
      const b = request.body;
      const run = await service.validate(
        callerOf(request),
        {
          rulePackId: b.rule_pack_id,
          rulePackVersion: b.rule_pack_version,
          rulePack: b.rule_pack,
          payload: b.payload,
          payloadFormat: b.payload_format,
          validationType: b.validation_type,
          strictMode: b.strict_mode,
          metadata: b.metadata,
        },
        forwarding(request),
      );
      return runJson(run);
    },
  );

  routes.get<{ Querystring: SchemasQuery }>(
    '/schemas',
    {
      schema: {
        tags: ['validation'],
        summary: 'The schemas of the schema registry this tenant may read',
        querystring: SchemasQuery,
        response: responses(SchemasResponse),
      },
    },
    async (request) => service.listSchemas(callerOf(request), { kind: request.query.kind }, forwarding(request)),
  );

  routes.get<{ Params: SchemaParams; Querystring: SchemaVersionQuery }>(
    '/schemas/:name',
    {
      schema: {
        tags: ['validation'],
        summary: 'One schema of the schema registry (the latest version, or ?version=)',
        params: SchemaParams,
        querystring: SchemaVersionQuery,
        response: responses(SchemaVersionResponse),
      },
    },
    async (request) =>
      service.getSchema(callerOf(request), request.params.name, request.query.version, forwarding(request)),
  );
}
