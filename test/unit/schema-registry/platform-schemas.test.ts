// How a contract file becomes a built-in schema: its kind from its name, its version from $id.
import {
  kindOfContract,
  readContracts,
  versionOfContract,
} from '../../../subgraphs/schema-registry/platform-schemas.seed';
import { assertDraft07, fingerprintOf } from '../../../subgraphs/schema-registry/schema-definition';
import { InputError } from '../../../platform/errors/domain-errors';
import { EVENT_CATALOGUE } from '../../../platform/contracts/events.catalogue';
import { catalogueSchemas, plainSchema } from '../../../subgraphs/schema-registry/event-catalogue.seed';
import { NAME_PATTERN } from '../../../subgraphs/schema-registry/schema-registry.service';

it('kind: rule-pack and workflow-pack by name, anything else data', () => {
  expect(kindOfContract('rule-pack')).toBe('rule-pack');
  expect(kindOfContract('workflow-pack')).toBe('workflow-pack');
  expect(kindOfContract('customer')).toBe('data');
});

it('version: the last $id segment when it is semver, else 1.0.0', () => {
  expect(versionOfContract({ $id: 'https://platform.local/schemas/rule-pack/1.0.0' })).toBe('1.0.0');
  expect(versionOfContract({ $id: 'https://platform.local/schemas/workflow-pack/2.3.1-rc.1#' })).toBe('2.3.1-rc.1');
  expect(versionOfContract({ $id: 'https://platform.local/schemas/customer' })).toBe('1.0.0');
  expect(versionOfContract({ $id: 'https://x/v2' })).toBe('1.0.0');
  expect(versionOfContract({})).toBe('1.0.0');
});

it('the contracts on disk are valid draft-07 schemas', () => {
  const contracts = readContracts();
  expect(contracts.map((c) => c.name)).toContain('rule-pack');
  for (const c of contracts) expect(() => assertDraft07(c.definition, 'definition')).not.toThrow();
});

it('fingerprints ignore key order', () => {
  expect(fingerprintOf({ a: 1, b: [1, { c: 2, d: 3 }] })).toBe(fingerprintOf({ b: [1, { d: 3, c: 2 }], a: 1 }));
  expect(fingerprintOf({ a: 1 })).not.toBe(fingerprintOf({ a: 2 }));
});

it('refuses non-objects, other drafts and invalid schemas, naming the field', () => {
  for (const bad of [
    [],
    'x',
    null,
    { $schema: 'http://json-schema.org/draft-04/schema#' },
    { type: 'nope' },
    { properties: { a: { minimum: 'x' } } },
  ]) {
    expect(() => assertDraft07(bad, 'definition')).toThrow(InputError);
  }
  try {
    assertDraft07({ type: 'nope' }, 'definition');
  } catch (err) {
    expect((err as InputError).issues[0]!.loc).toEqual(['definition']);
  }
  expect(() =>
    assertDraft07({ $schema: 'http://json-schema.org/draft-07/schema', 'x-custom': true }, 'definition'),
  ).not.toThrow();
});

it('every event contract becomes a draft-07 schema named events.<topic>, version <n>.0.0, BACKWARD by default', () => {
  const seeded = catalogueSchemas(EVENT_CATALOGUE);
  expect(seeded).toHaveLength(EVENT_CATALOGUE.length);
  for (const [i, c] of EVENT_CATALOGUE.entries()) {
    const s = seeded[i]!;
    expect(s).toMatchObject({ name: `events.${c.topic}`, kind: 'data', version: `${c.version}.0.0` });
    expect(s.name).toMatch(new RegExp(NAME_PATTERN));
    expect(s.compatibility).toBe(c.compatibility ?? 'BACKWARD');
    expect(s.definition.$id).toBeUndefined();
    expect(() => assertDraft07(s.definition, 'definition')).not.toThrow();
  }
  // Plain JSON: nothing TypeBox keeps under symbols survives.
  expect(Object.getOwnPropertySymbols(seeded[0]!.definition)).toEqual([]);
  expect(plainSchema({ $id: 'x.v1', type: 'object' })).toEqual({ type: 'object' });
});

it("the platform's formats (semver, timestamp) are known to the registry's compiler", () => {
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  try {
    assertDraft07({ type: 'string', format: 'semver' }, 'definition');
    assertDraft07({ type: 'string', format: 'timestamp' }, 'definition');
    expect(warn).not.toHaveBeenCalled();
  } finally {
    warn.mockRestore();
  }
});
