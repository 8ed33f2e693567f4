// Every service's /docs/openapi.json is a valid OpenAPI 3 document (checked against the official
// OpenAPI JSON schema by an independent validator), generated from the same route schemas that
// validate requests.
import { Validator } from '@seriousme/openapi-schema-validator';
import { startServices, type Harness } from '../../support/service-harness';
import { SERVICES } from '../../../launcher/registry';

// Every registered service but the gateway, whose REST routes are a proxy table.
const services = SERVICES.filter((s) => s.name !== 'gateway');

describe('OpenAPI documents', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startServices(services, { PASSWORD_SCRYPT_LOG_N: '10' });
  });
  afterAll(() => harness.close());

  it.each(services.map((s) => s.name))('%s serves a valid OpenAPI 3 document', async (name) => {
    const res = await fetch(`${harness.services[name]!.url}/docs/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toMatch(/^3\.0\./);
    // Its own routes are documented (the health probes are not listed; the smallest service, observability, has three).
    expect(Object.keys(doc.paths).length).toBeGreaterThanOrEqual(3);
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });
});
