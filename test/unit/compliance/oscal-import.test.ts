// The OSCAL import, without a database: the shipped fixtures pass NIST's schemas and parse to
// their controls; each hostile document (huge, deeply nested, too many controls, dangling
// parameter, link, profile selection or mapping target, duplicate ids, schema violations) is an
// InputError (or a 413) naming where in the document the problem is.
import fs from 'node:fs';
import path from 'node:path';
import { InputError, PayloadTooLargeError } from '../../../platform/errors/domain-errors';
import { LIMITS, type Control } from '../../../subgraphs/compliance/compliance.types';
import { freshnessOf } from '../../../subgraphs/compliance/evidence.freshness';
import { assertDocumentLimits } from '../../../subgraphs/compliance/oscal/document-limits';
import {
  documentSha256,
  parseCatalog,
  parseFrameworkMapping,
  parseProfile,
} from '../../../subgraphs/compliance/oscal/oscal-import';
import { schemaIssues } from '../../../subgraphs/compliance/oscal/oscal-schemas';

jest.setTimeout(60_000);

const FIXTURES = path.resolve(__dirname, '../../../platform/contracts/oscal/fixtures');
const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as any;
const clone = <T>(v: T): T => structuredClone(v);

function inputIssues(work: () => unknown) {
  try {
    work();
  } catch (err) {
    if (err instanceof InputError) return err.issues;
    throw err;
  }
  throw new Error('expected an InputError');
}

function minimalCatalog(controls: unknown[]) {
  return {
    catalog: {
      uuid: '11111111-2222-4333-8444-555555555555',
      metadata: { title: 't', 'last-modified': '2026-01-01T00:00:00Z', version: '1', 'oscal-version': '1.0.0' },
      controls,
    },
  };
}

describe('the shipped fixtures', () => {
  const catalog = fixture('nist-800-53-rev5-subset.catalog.json');
  const profile = fixture('nist-800-53-moderate-subset.profile.json');
  const soc2 = fixture('soc2-to-nist-800-53.mapping.json');

  it("pass NIST's OSCAL 1.0.0 schemas and this platform's mapping schema", () => {
    expect(schemaIssues('catalog', catalog)).toEqual([]);
    expect(schemaIssues('profile', profile)).toEqual([]);
    expect(schemaIssues('framework-mapping', soc2)).toEqual([]);
  });

  it('parse: the catalog to its controls and enhancements, the profile to its selection, SOC 2 onto 800-53', () => {
    const parsed = parseCatalog('nist-800-53', catalog);
    const ids = parsed.controls.map((c) => c.controlId);
    expect(ids).toEqual(expect.arrayContaining(['ac-2', 'ac-2.1', 'au-2', 'au-11', 'cm-3', 'si-10']));
    expect(parsed.controls.length).toBeGreaterThanOrEqual(15);
    expect(parsed.controls.find((c) => c.controlId === 'ac-2.1')?.parentId).toBe('ac-2');
    expect(parsed.controls.find((c) => c.controlId === 'au-11')?.statement).toContain('insert: param, au-11_prm_1');

    const moderate = parseProfile('nist-800-53-moderate', profile, new Map([['nist-800-53', parsed.controls]]));
    expect(moderate.basedOn).toBe('nist-800-53');
    expect(moderate.controls.find((c) => c.controlId === 'ac-2')?.mapsTo).toEqual([
      { framework: 'nist-800-53', controlId: 'ac-2' },
    ]);

    const mapping = parseFrameworkMapping('soc2', soc2, parsed.controls);
    const cc61 = mapping.controls.find((c) => c.controlId === 'CC6.1')!;
    expect(cc61.mapsTo.map((m) => m.controlId)).toEqual(['ac-2', 'ac-3', 'ac-6', 'ia-2', 'sc-28']);
  });

  it('hash a document by its canonical JSON: key order does not matter', () => {
    const reverse = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(reverse)
        : v && typeof v === 'object'
          ? Object.fromEntries(
              Object.entries(v)
                .reverse()
                .map(([k, x]) => [k, reverse(x)]),
            )
          : v;
    const reordered = reverse(catalog);
    expect(JSON.stringify(reordered)).not.toBe(JSON.stringify(catalog));
    expect(documentSha256(reordered)).toBe(documentSha256(catalog));
    expect(documentSha256({ b: 1, a: 2 })).toBe(documentSha256({ a: 2, b: 1 }));
  });
});

describe('hostile documents', () => {
  const catalog = fixture('nist-800-53-rev5-subset.catalog.json');
  const controls = (): Control[] => parseCatalog('nist-800-53', catalog).controls;

  it('a huge document is a 413 before any schema work', () => {
    const huge = minimalCatalog([{ id: 'x-1', title: 'x'.repeat(LIMITS.documentBytes) }]);
    expect(() => assertDocumentLimits(huge)).toThrow(PayloadTooLargeError);
  });

  it('a deeply nested document is a 422 json_too_deep, checked without recursion', () => {
    let deep: any = { id: 'x-1', title: 'leaf' };
    for (let i = 0; i < 100_000; i++) deep = { id: `x-${i}`, title: 't', controls: [deep] };
    const issues = inputIssues(() => assertDocumentLimits(minimalCatalog([deep])));
    expect(issues[0]).toMatchObject({ loc: ['document'], type: 'json_too_deep' });
  });

  it('controls nested past the nesting limit are refused even within the depth limit', () => {
    let deep: any = { id: 'x-0', title: 'leaf' };
    for (let i = 1; i <= LIMITS.controlNesting + 1; i++) deep = { id: `x-${i}`, title: 't', controls: [deep] };
    const doc = minimalCatalog([deep]);
    expect(schemaIssues('catalog', doc)).toEqual([]);
    expect(inputIssues(() => parseCatalog('f', doc))[0]).toMatchObject({ type: 'too_deep' });
  });

  it('more controls than the limit is a 422', () => {
    const many = Array.from({ length: LIMITS.controls + 1 }, (_, i) => ({ id: `c-${i}`, title: 't' }));
    expect(inputIssues(() => parseCatalog('f', minimalCatalog(many)))[0]).toMatchObject({ type: 'too_long' });
  });

  it('a schema violation names the path inside the document', () => {
    const bad = clone(catalog);
    delete bad.catalog.metadata.title;
    const [issue] = schemaIssues('catalog', bad);
    expect(issue!.loc.slice(0, 3)).toEqual(['document', 'catalog', 'metadata']);
    expect(issue!.msg).toMatch(/OSCAL 1.0.0 catalog/);
    const badId = minimalCatalog([{ id: 'has space', title: 't' }]);
    expect(schemaIssues('catalog', badId)[0]!.loc).toEqual(['document', 'catalog', 'controls', 0, 'id']);
  });

  it('a parameter inserted in prose that no control defines is dangling', () => {
    const bad = clone(catalog);
    const au11 = bad.catalog.groups.find((g: any) => g.id === 'au').controls.find((c: any) => c.id === 'au-11');
    delete au11.params;
    const [issue] = inputIssues(() => parseCatalog('f', bad));
    expect(issue).toMatchObject({ type: 'dangling_reference', msg: expect.stringContaining('au-11_prm_1') });
    expect(issue!.loc).toEqual(expect.arrayContaining(['document', 'catalog', 'groups', 'parts', 0, 'prose']));
  });

  it('a #link to no control is dangling; duplicate control ids are refused', () => {
    const linked = minimalCatalog([{ id: 'a-1', title: 't', links: [{ href: '#zz-9', rel: 'related' }] }]);
    expect(inputIssues(() => parseCatalog('f', linked))[0]).toMatchObject({
      loc: ['document', 'catalog', 'controls', 0, 'links', 0, 'href'],
      type: 'dangling_reference',
    });
    const dup = minimalCatalog([
      { id: 'a-1', title: 't' },
      { id: 'a-1', title: 'u' },
    ]);
    expect(inputIssues(() => parseCatalog('f', dup))[0]).toMatchObject({ type: 'duplicate' });
  });

  it('a profile importing an unknown control id, or an unknown catalog, is dangling', () => {
    const profile = fixture('nist-800-53-moderate-subset.profile.json');
    profile.profile.imports[0]['include-controls'][0]['with-ids'].push('zz-99');
    const [issue] = inputIssues(() => parseProfile('p', profile, new Map([['nist-800-53', controls()]])));
    expect(issue).toMatchObject({ type: 'dangling_reference', msg: expect.stringContaining('zz-99') });
    expect(issue!.loc.slice(0, 5)).toEqual(['document', 'profile', 'imports', 0, 'include-controls']);

    const elsewhere = fixture('nist-800-53-moderate-subset.profile.json');
    expect(inputIssues(() => parseProfile('p', elsewhere, new Map()))[0]).toMatchObject({
      loc: ['document', 'profile', 'imports', 0, 'href'],
      type: 'dangling_reference',
    });
    const noResource = fixture('nist-800-53-moderate-subset.profile.json');
    noResource.profile.imports[0].href = '#00000000-0000-4000-8000-000000000000';
    expect(inputIssues(() => parseProfile('p', noResource, new Map()))[0]).toMatchObject({
      type: 'dangling_reference',
    });
  });

  it('a mapping onto a control its target lacks, or onto no imported target, is dangling', () => {
    const soc2 = fixture('soc2-to-nist-800-53.mapping.json');
    soc2['framework-mapping'].criteria[0]['maps-to'].push('xx-1');
    expect(inputIssues(() => parseFrameworkMapping('soc2', soc2, controls()))[0]).toMatchObject({
      loc: ['document', 'framework-mapping', 'criteria', 0, 'maps-to', 5],
      type: 'dangling_reference',
    });
    expect(
      inputIssues(() => parseFrameworkMapping('soc2', fixture('soc2-to-nist-800-53.mapping.json'), undefined))[0],
    ).toMatchObject({
      loc: ['document', 'framework-mapping', 'target'],
    });
  });
});

describe('freshness', () => {
  const now = new Date('2026-06-01T00:00:00Z');
  const day = 86_400_000;
  const row = (expiresInDays: number) => ({
    controlId: 'ac-2',
    evidenceCount: 1,
    lastCollectedAt: new Date(now.getTime() - day),
    latestExpiry: new Date(now.getTime() + expiresInDays * day),
  });

  it('is fresh beyond the window, expiring within it, stale once expired or without evidence', () => {
    expect(freshnessOf('f', 'ac-2', row(30), now, 14).status).toBe('fresh');
    expect(freshnessOf('f', 'ac-2', row(10), now, 14).status).toBe('expiring');
    expect(freshnessOf('f', 'ac-2', row(-1), now, 14)).toMatchObject({
      status: 'stale',
      expiresAt: null,
      evidenceCount: 1,
    });
    expect(freshnessOf('f', 'ac-2', undefined, now, 14)).toMatchObject({ status: 'stale', evidenceCount: 0 });
  });
});
