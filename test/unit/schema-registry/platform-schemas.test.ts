// How a contract file becomes a built-in schema: its kind from its name, its version from $id.
import {
  kindOfContract,
  readContracts,
  versionOfContract,
} from '../../../subgraphs/schema-registry/platform-schemas.seed';
import { assertDraft07, fingerprintOf } from '../../../subgraphs/schema-registry/schema-definition';
import { InputError } from '../../../platform/errors/domain-errors';

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
