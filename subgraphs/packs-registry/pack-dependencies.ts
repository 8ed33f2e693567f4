// The dependency resolver: a workflow pack's graph of rule packs, schemas and workflow packs,
// followed through workflow packs transitively. Rule packs are owned by the rule-pack registry:
// the catalog learns of them from its bus events, but a bus event can be missed, so unless the
// catalog already holds a rule pack as deprecated (final), the registry itself is asked, with the
// caller's token; the catalog answers only while the registry cannot. Schemas are asked of the
// schema registry. Problems are refused: missing dependencies and cycles among workflow packs as
// input errors naming them, deprecated ones as conflicts naming the replacement, and (for
// certification) dependencies that are not certified yet.
import type { ServiceCallContext } from '../../platform/clients/service-request';
import { ServiceCallError } from '../../platform/clients/service-request';
import type { RulePackRegistryClient } from '../../platform/clients/rulepack-registry.client';
import type { SchemaRegistryClient } from '../../platform/clients/schema-registry.client';
import { ConflictError, InputError, UnavailableError, type InputIssue } from '../../platform/errors/domain-errors';
import type { PackStore } from './pack.store';
import type { PackDependencies, PackEntry, PackRef, SchemaRef, Viewer } from './pack.types';

export type NodeKind = 'workflow' | 'rule' | 'schema';
/** A pack's status where it is owned; `available` for a schema version that exists. */
export type NodeStatus = 'draft' | 'review' | 'certified' | 'deprecated' | 'available' | 'missing';
export type NodeSource = 'catalog' | 'rulepack-registry' | 'schema-registry';

export interface DependencyNode {
  /** `workflow:<pack_id>@<version>`, `rule:<pack_id>@<version>` or `schema:<name>@<version>`. */
  id: string;
  kind: NodeKind;
  /** pack_id, or the schema's name. */
  name: string;
  version: string;
  status: NodeStatus;
  /** Who answered for it (`catalog` when the rule-pack registry could not be asked). */
  source: NodeSource;
  ownerTenant: string | null;
  replacement: PackRef | null;
}

export interface DependencyGraph {
  root: string;
  nodes: DependencyNode[];
  edges: { from: string; to: string }[];
}

export const nodeId = (kind: NodeKind, name: string, version: string) => `${kind}:${name}@${version}`;

interface Problem {
  /** The root's dependency through which the problem is reached (its list and index). */
  via: { list: keyof PackDependencies; index: number };
  node: DependencyNode;
  /** The workflow pack that names the dependency. */
  neededBy: string;
}

export interface ResolverDeps {
  packs: PackStore;
  rulePacks: RulePackRegistryClient;
  schemas: SchemaRegistryClient;
}

const KIND_LABEL: Record<NodeKind, string> = { workflow: 'Workflow pack', rule: 'Rule pack', schema: 'Schema' };
const LIST_OF: Record<NodeKind, keyof PackDependencies> = {
  workflow: 'workflow_packs',
  rule: 'rule_packs',
  schema: 'schemas',
};

function describe(node: DependencyNode): string {
  return `${KIND_LABEL[node.kind]} '${node.name}' version ${node.version}`;
}

/** One resolution: memoised lookups, the graph built so far and the problems found. */
class Resolution {
  readonly nodes = new Map<string, DependencyNode>();
  readonly edges: { from: string; to: string }[] = [];
  readonly problems: Problem[] = [];
  readonly cycles: { via: Problem['via']; path: string[] }[] = [];
  private readonly expanded = new Set<string>();

  constructor(
    private readonly deps: ResolverDeps,
    private readonly viewer: Viewer,
    private readonly context: ServiceCallContext,
  ) {}

  async walk(entry: PackEntry, stack: string[], via: Problem['via'] | undefined): Promise<void> {
    const from = nodeId('workflow', entry.packId, entry.version);
    this.expanded.add(from);
    const lists: [NodeKind, (PackRef | SchemaRef)[]][] = [
      ['rule', entry.dependencies.rule_packs],
      ['schema', entry.dependencies.schemas],
      ['workflow', entry.dependencies.workflow_packs],
    ];
    for (const [kind, refs] of lists) {
      for (const [index, ref] of refs.entries()) {
        const name = 'pack_id' in ref ? ref.pack_id : ref.name;
        const to = nodeId(kind, name, ref.version);
        const reach = via ?? { list: LIST_OF[kind], index };
        this.edges.push({ from, to });
        if (kind === 'workflow' && stack.includes(to)) {
          this.cycles.push({ via: reach, path: [...stack.slice(stack.indexOf(to)), to] });
          continue;
        }
        const known = this.nodes.get(to);
        const { node, entry: child } = known
          ? { node: known, entry: undefined }
          : await this.lookup(kind, name, ref.version);
        if (!known) this.nodes.set(to, node);
        if (['missing', 'deprecated', 'draft', 'review'].includes(node.status))
          this.problems.push({ via: reach, node, neededBy: from });
        if (child && !this.expanded.has(to)) await this.walk(child, [...stack, to], reach);
      }
    }
  }

  private async lookup(
    kind: NodeKind,
    name: string,
    version: string,
  ): Promise<{ node: DependencyNode; entry?: PackEntry }> {
    const base = { id: nodeId(kind, name, version), kind, name, version, ownerTenant: null, replacement: null };
    if (kind === 'schema') return { node: { ...base, ...(await this.schema(name, version)) } };
    const entry = await this.deps.packs.find(this.viewer, name, version);
    if (kind === 'workflow') {
      if (!entry || entry.kind !== 'workflow') return { node: { ...base, status: 'missing', source: 'catalog' } };
      return {
        node: {
          ...base,
          status: entry.status,
          source: 'catalog',
          ownerTenant: entry.ownerTenant,
          replacement: entry.replacement,
        },
        entry,
      };
    }
    const fromCatalog = entry?.kind === 'rule' ? entry : undefined;
    if (fromCatalog?.status === 'deprecated') {
      return {
        node: {
          ...base,
          status: 'deprecated',
          source: 'catalog',
          ownerTenant: fromCatalog.ownerTenant,
          replacement: fromCatalog.replacement,
        },
      };
    }
    try {
      const view = await this.deps.rulePacks.get(this.context, name, version);
      return {
        node: {
          ...base,
          status: view.status,
          source: 'rulepack-registry',
          ownerTenant: view.owner_tenant,
          replacement: view.replacement ?? null,
        },
      };
    } catch (err) {
      if (err instanceof ServiceCallError && err.status === 404)
        return { node: { ...base, status: 'missing', source: 'rulepack-registry' } };
      if (fromCatalog)
        return {
          node: {
            ...base,
            status: fromCatalog.status,
            source: 'catalog',
            ownerTenant: fromCatalog.ownerTenant,
            replacement: fromCatalog.replacement,
          },
        };
      throw new UnavailableError(
        `Cannot resolve rule pack '${name}' version ${version}: the rule-pack registry did not answer (${(err as Error).message})`,
      );
    }
  }

  private async schema(
    name: string,
    version: string,
  ): Promise<Pick<DependencyNode, 'status' | 'source' | 'ownerTenant'>> {
    try {
      const view = await this.deps.schemas.get(this.context, name, version);
      return { status: 'available', source: 'schema-registry', ownerTenant: view.owner };
    } catch (err) {
      if (err instanceof ServiceCallError && err.status === 404)
        return { status: 'missing', source: 'schema-registry', ownerTenant: null };
      throw new UnavailableError(
        `Cannot resolve schema '${name}' version ${version}: the schema registry did not answer (${(err as Error).message})`,
      );
    }
  }
}

export class DependencyResolver {
  constructor(private readonly deps: ResolverDeps) {}

  /**
   * The graph of `root`, or the first kind of problem found, refused: missing dependencies
   * (InputError listing them), cycles (InputError naming them), deprecated dependencies
   * (ConflictError naming the replacements) and, when `requireCertified`, drafts and packs under
   * review (ConflictError).
   */
  async resolve(
    viewer: Viewer,
    context: ServiceCallContext,
    root: PackEntry,
    options: { requireCertified: boolean },
  ): Promise<DependencyGraph> {
    const rootId = nodeId('workflow', root.packId, root.version);
    const run = new Resolution(this.deps, viewer, context);
    run.nodes.set(rootId, {
      id: rootId,
      kind: 'workflow',
      name: root.packId,
      version: root.version,
      status: root.status,
      source: 'catalog',
      ownerTenant: root.ownerTenant,
      replacement: root.replacement,
    });
    await run.walk(root, [rootId], undefined);

    const loc = (p: { via: Problem['via'] }) => ['dependencies', p.via.list, p.via.index];
    const missing = run.problems.filter((p) => p.node.status === 'missing');
    if (missing.length > 0) {
      throw new InputError(
        missing.map((p): InputIssue => ({
          loc: loc(p),
          msg: `${describe(p.node)} not found${p.neededBy === rootId ? '' : ` (needed by ${p.neededBy})`}`,
          type: 'dependency_missing',
        })),
      );
    }
    if (run.cycles.length > 0) {
      throw new InputError(
        run.cycles.map((c): InputIssue => ({
          loc: loc(c),
          msg: `Dependency cycle among workflow packs: ${c.path.join(' -> ')}`,
          type: 'dependency_cycle',
        })),
      );
    }
    const deprecated = run.problems.filter((p) => p.node.status === 'deprecated');
    if (deprecated.length > 0) {
      throw new ConflictError(
        deprecated
          .map((p) => {
            const r = p.node.replacement;
            return `${describe(p.node)} is deprecated; ${r ? `use '${r.pack_id}' version ${r.version} instead` : 'no replacement was named'}`;
          })
          .join('; '),
      );
    }
    const uncertified = run.problems.filter((p) => p.node.status === 'draft' || p.node.status === 'review');
    if (options.requireCertified && uncertified.length > 0) {
      throw new ConflictError(
        uncertified
          .map(
            (p) => `${describe(p.node)} is ${p.node.status === 'draft' ? 'a draft' : 'under review'}: certify it first`,
          )
          .join('; '),
      );
    }
    return { root: rootId, nodes: [...run.nodes.values()], edges: run.edges };
  }
}
