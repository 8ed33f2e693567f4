// From a validated OSCAL document to the controls the service stores: pure functions, no I/O.
// The schema says a document is well formed; these check what it cannot: control counts and
// nesting, duplicate ids, and dangling references (a parameter inserted in prose that no control
// defines, a `#fragment` link to nothing, a profile selecting an id its catalog lacks, a mapping
// naming an unknown control). Every problem is an InputError naming the path inside `document`.
import crypto from 'node:crypto';
import canonicalize from 'canonicalize';
import { InputError, type InputIssue } from '../../../platform/errors/domain-errors';
import { LIMITS, type Control, type ControlRef, type ParsedFramework } from '../compliance.types';

type Loc = (string | number)[];

interface OscalPart {
  id?: string;
  name: string;
  prose?: string;
  parts?: OscalPart[];
  links?: OscalLink[];
}
interface OscalLink {
  href: string;
  rel?: string;
}
interface OscalParam {
  id: string;
}
interface OscalControl {
  id: string;
  title: string;
  params?: OscalParam[];
  parts?: OscalPart[];
  links?: OscalLink[];
  controls?: OscalControl[];
}
interface OscalGroup {
  id?: string;
  title: string;
  params?: OscalParam[];
  parts?: OscalPart[];
  groups?: OscalGroup[];
  controls?: OscalControl[];
}
interface BackMatter {
  resources?: { uuid: string; rlinks?: { href: string }[] }[];
}
interface OscalMetadata {
  title: string;
  version: string;
}
interface OscalCatalog {
  uuid: string;
  metadata: OscalMetadata;
  params?: OscalParam[];
  controls?: OscalControl[];
  groups?: OscalGroup[];
  'back-matter'?: BackMatter;
}
interface SelectControlById {
  'with-ids'?: string[];
  'with-child-controls'?: 'yes' | 'no';
}
interface OscalImport {
  href: string;
  'include-all'?: Record<string, never>;
  'include-controls'?: SelectControlById[];
  'exclude-controls'?: SelectControlById[];
}
interface OscalProfile {
  uuid: string;
  metadata: OscalMetadata;
  imports: OscalImport[];
  'back-matter'?: BackMatter;
}
interface FrameworkMappingDoc {
  uuid: string;
  metadata: OscalMetadata;
  target: string;
  criteria: { id: string; title: string; description?: string; 'maps-to': string[] }[];
}

const INSERT_PARAM = /\{\{\s*insert:\s*param,\s*([^\s}]+)\s*\}\}/g;
const CATALOG_HREF = /^catalog:([a-z0-9][a-z0-9._-]{0,99})$/;

/** SHA-256 hex of the RFC 8785 canonical JSON of a document: one hash whatever its key order. */
export function documentSha256(document: unknown): string {
  return crypto
    .createHash('sha256')
    .update(canonicalize(document) ?? '')
    .digest('hex');
}

function dangling(loc: Loc, msg: string): InputIssue {
  return { loc: ['document', ...loc], msg, type: 'dangling_reference' };
}

function fail(issues: InputIssue[]): never {
  throw new InputError(issues.slice(0, 20));
}

function proseOf(parts: OscalPart[] | undefined): string {
  const out: string[] = [];
  const walk = (list: OscalPart[] | undefined) => {
    for (const p of list ?? []) {
      if (p.prose) out.push(p.prose);
      walk(p.parts);
    }
  };
  walk((parts ?? []).filter((p) => p.name === 'statement'));
  return out.join('\n');
}

/** Every `{{ insert: param, id }}` in the prose of a part tree, with its location. */
function* insertedParams(parts: OscalPart[] | undefined, loc: Loc): Generator<[string, Loc]> {
  for (const [i, p] of (parts ?? []).entries()) {
    for (const m of (p.prose ?? '').matchAll(INSERT_PARAM)) yield [m[1]!, [...loc, i, 'prose']];
    yield* insertedParams(p.parts, [...loc, i, 'parts']);
  }
}

function* partLinks(parts: OscalPart[] | undefined, loc: Loc): Generator<[OscalLink, Loc]> {
  for (const [i, p] of (parts ?? []).entries()) {
    for (const [j, l] of (p.links ?? []).entries()) yield [l, [...loc, i, 'links', j, 'href']];
    yield* partLinks(p.parts, [...loc, i, 'parts']);
  }
}

function* partIds(parts: OscalPart[] | undefined): Generator<string> {
  for (const p of parts ?? []) {
    if (p.id) yield p.id;
    yield* partIds(p.parts);
  }
}

/** A catalog's controls (enhancements included), checked for size, nesting, duplicates and dangling references. */
export function parseCatalog(framework: string, document: unknown): ParsedFramework {
  const catalog = (document as { catalog: OscalCatalog }).catalog;
  const controls: Control[] = [];
  const issues: InputIssue[] = [];
  const anchors = new Set<string>();
  const controlIds = new Set<string>();
  const params = new Set<string>((catalog.params ?? []).map((p) => p.id));
  const uses: { param: string; loc: Loc }[] = [];
  const links: [OscalLink, Loc][] = [];
  for (const r of catalog['back-matter']?.resources ?? []) anchors.add(r.uuid);

  // Groups and controls nest; walked with an explicit stack and a depth bound (no recursion on input).
  type Node = { kind: 'group'; value: OscalGroup } | { kind: 'control'; value: OscalControl; parent: string | null };
  const stack: { node: Node; loc: Loc; depth: number }[] = [];
  const pushChildren = (
    groups: OscalGroup[] | undefined,
    list: OscalControl[] | undefined,
    loc: Loc,
    depth: number,
    parent: string | null,
  ) => {
    for (let i = (list ?? []).length - 1; i >= 0; i--)
      stack.push({ node: { kind: 'control', value: list![i]!, parent }, loc: [...loc, 'controls', i], depth });
    for (let i = (groups ?? []).length - 1; i >= 0; i--)
      stack.push({ node: { kind: 'group', value: groups![i]! }, loc: [...loc, 'groups', i], depth });
  };
  pushChildren(catalog.groups, catalog.controls, ['catalog'], 1, null);
  while (stack.length > 0) {
    const { node, loc, depth } = stack.pop()!;
    if (depth > LIMITS.controlNesting)
      fail([
        {
          loc: ['document', ...loc],
          msg: `Groups and controls nest deeper than ${LIMITS.controlNesting} levels`,
          type: 'too_deep',
        },
      ]);
    const v = node.value;
    for (const p of v.params ?? []) params.add(p.id);
    for (const id of partIds(v.parts)) anchors.add(id);
    for (const [param, at] of insertedParams(v.parts, [...loc, 'parts'])) uses.push({ param, loc: at });
    links.push(...partLinks(v.parts, [...loc, 'parts']));
    if (node.kind === 'group') {
      if (node.value.id) anchors.add(node.value.id);
      pushChildren(node.value.groups, node.value.controls, loc, depth + 1, null);
      continue;
    }
    const c = node.value;
    for (const [j, l] of (c.links ?? []).entries()) links.push([l, [...loc, 'links', j, 'href']]);
    if (controlIds.has(c.id))
      issues.push({ loc: ['document', ...loc, 'id'], msg: `Control id '${c.id}' appears twice`, type: 'duplicate' });
    anchors.add(c.id);
    controlIds.add(c.id);
    controls.push({
      framework,
      controlId: c.id,
      title: c.title,
      statement: proseOf(c.parts),
      parentId: node.parent,
      mapsTo: [],
    });
    if (controls.length > LIMITS.controls)
      fail([{ loc: ['document', 'catalog'], msg: `More than ${LIMITS.controls} controls`, type: 'too_long' }]);
    pushChildren(undefined, c.controls, loc, depth + 1, c.id);
  }
  if (controls.length === 0)
    issues.push({ loc: ['document', 'catalog'], msg: 'The catalog has no controls', type: 'missing' });
  for (const u of uses)
    if (!params.has(u.param)) issues.push(dangling(u.loc, `Parameter '${u.param}' is inserted but defined nowhere`));
  for (const [l, at] of links) {
    if (!l.href.startsWith('#')) continue;
    const target = l.href.slice(1);
    if (!anchors.has(target) && !params.has(target))
      issues.push(dangling(at, `Link '${l.href}' points to no control, part, parameter or resource of this catalog`));
  }
  if (issues.length > 0) fail(issues);
  return {
    framework,
    kind: 'catalog',
    oscalUuid: catalog.uuid,
    title: catalog.metadata.title,
    version: catalog.metadata.version,
    basedOn: null,
    sha256: documentSha256(document),
    document,
    controls,
  };
}

/** The catalog framework a `catalog:<key>` href names, or an issue. */
function catalogKeyOf(href: string, loc: Loc): string | InputIssue {
  const m = CATALOG_HREF.exec(href);
  return m
    ? m[1]!
    : dangling(loc, `'${href}' names no imported catalog (use catalog:<framework> or #<back-matter resource>)`);
}

/** The catalog framework each import of a profile names: `catalog:<key>`, or `#<uuid>` of a back-matter resource whose rlink is one. */
export function profileImportTargets(document: unknown): string[] {
  const profile = (document as { profile: OscalProfile }).profile;
  const resources = new Map((profile['back-matter']?.resources ?? []).map((r) => [r.uuid, r]));
  const issues: InputIssue[] = [];
  const targets: string[] = [];
  for (const [i, imp] of profile.imports.entries()) {
    const loc: Loc = ['profile', 'imports', i, 'href'];
    let href = imp.href;
    if (href.startsWith('#')) {
      const resource = resources.get(href.slice(1));
      const rlink = resource?.rlinks?.find((r) => CATALOG_HREF.test(r.href)) ?? resource?.rlinks?.[0];
      if (!rlink) {
        issues.push(dangling(loc, `'${href}' names no back-matter resource with an rlink`));
        continue;
      }
      href = rlink.href;
    }
    const key = catalogKeyOf(href, loc);
    if (typeof key === 'string') targets.push(key);
    else issues.push(key);
  }
  if (issues.length > 0) fail(issues);
  return targets;
}

/** A profile's selected controls, from the controls of the catalogs its imports name (in import order). */
export function parseProfile(framework: string, document: unknown, catalogs: Map<string, Control[]>): ParsedFramework {
  const profile = (document as { profile: OscalProfile }).profile;
  const targets = profileImportTargets(document);
  const issues: InputIssue[] = [];
  const selected = new Map<string, Control>();
  for (const [i, imp] of profile.imports.entries()) {
    const from = targets[i]!;
    const source = catalogs.get(from);
    if (!source) {
      issues.push(dangling(['profile', 'imports', i, 'href'], `No catalog '${from}' has been imported in this tenant`));
      continue;
    }
    const byId = new Map(source.map((c) => [c.controlId, c]));
    const children = (id: string): Control[] => {
      const out: Control[] = [];
      const queue = [id];
      while (queue.length > 0) {
        const parent = queue.shift()!;
        for (const c of source)
          if (c.parentId === parent) {
            out.push(c);
            queue.push(c.controlId);
          }
      }
      return out;
    };
    const pick = (rules: SelectControlById[] | undefined, key: string): Set<string> => {
      const ids = new Set<string>();
      for (const [r, rule] of (rules ?? []).entries())
        for (const [k, id] of (rule['with-ids'] ?? []).entries()) {
          if (!byId.has(id)) {
            issues.push(
              dangling(['profile', 'imports', i, key, r, 'with-ids', k], `Control '${id}' is not in catalog '${from}'`),
            );
            continue;
          }
          ids.add(id);
          if (rule['with-child-controls'] === 'yes') for (const c of children(id)) ids.add(c.controlId);
        }
      return ids;
    };
    const included = imp['include-all'] ? new Set(byId.keys()) : pick(imp['include-controls'], 'include-controls');
    const excluded = pick(imp['exclude-controls'], 'exclude-controls');
    for (const c of source) {
      if (!included.has(c.controlId) || excluded.has(c.controlId)) continue;
      if (selected.has(c.controlId)) {
        issues.push({
          loc: ['document', 'profile', 'imports', i],
          msg: `Control '${c.controlId}' is imported twice`,
          type: 'duplicate',
        });
        continue;
      }
      const parentId = c.parentId !== null && included.has(c.parentId) ? c.parentId : null;
      selected.set(c.controlId, { ...c, framework, parentId, mapsTo: [{ framework: from, controlId: c.controlId }] });
    }
  }
  if (issues.length === 0 && selected.size === 0)
    issues.push({ loc: ['document', 'profile', 'imports'], msg: 'The profile selects no controls', type: 'missing' });
  if (issues.length > 0) fail(issues);
  return {
    framework,
    kind: 'profile',
    oscalUuid: profile.uuid,
    title: profile.metadata.title,
    version: profile.metadata.version,
    basedOn: [...new Set(targets)].join(','),
    sha256: documentSha256(document),
    document,
    controls: [...selected.values()],
  };
}

/** The framework a mapping's `target` names. */
export function mappingTarget(document: unknown): string {
  const key = catalogKeyOf((document as { 'framework-mapping': FrameworkMappingDoc })['framework-mapping'].target, [
    'framework-mapping',
    'target',
  ]);
  if (typeof key !== 'string') fail([key]);
  return key;
}

/** A framework mapping's criteria as controls, each mapped to controls of its target framework. */
export function parseFrameworkMapping(
  framework: string,
  document: unknown,
  targetControls: Control[] | undefined,
): ParsedFramework {
  const mapping = (document as { 'framework-mapping': FrameworkMappingDoc })['framework-mapping'];
  const target = mappingTarget(document);
  if (!targetControls)
    fail([
      dangling(['framework-mapping', 'target'], `No catalog or profile '${target}' has been imported in this tenant`),
    ]);
  if (mapping.criteria.length > LIMITS.controls)
    fail([
      {
        loc: ['document', 'framework-mapping', 'criteria'],
        msg: `More than ${LIMITS.controls} criteria`,
        type: 'too_long',
      },
    ]);
  const known = new Set(targetControls.map((c) => c.controlId));
  const issues: InputIssue[] = [];
  const seen = new Set<string>();
  const controls: Control[] = [];
  for (const [i, c] of mapping.criteria.entries()) {
    if (seen.has(c.id))
      issues.push({
        loc: ['document', 'framework-mapping', 'criteria', i, 'id'],
        msg: `Criterion '${c.id}' appears twice`,
        type: 'duplicate',
      });
    seen.add(c.id);
    const mapsTo: ControlRef[] = [];
    for (const [k, id] of c['maps-to'].entries()) {
      if (!known.has(id))
        issues.push(
          dangling(['framework-mapping', 'criteria', i, 'maps-to', k], `Control '${id}' is not in '${target}'`),
        );
      else if (!mapsTo.some((m) => m.controlId === id)) mapsTo.push({ framework: target, controlId: id });
    }
    controls.push({
      framework,
      controlId: c.id,
      title: c.title,
      statement: c.description ?? '',
      parentId: null,
      mapsTo,
    });
  }
  if (issues.length > 0) fail(issues);
  return {
    framework,
    kind: 'mapping',
    oscalUuid: mapping.uuid,
    title: mapping.metadata.title,
    version: mapping.metadata.version,
    basedOn: target,
    sha256: documentSha256(document),
    document,
    controls,
  };
}
