// Contracts live in one place (platform/contracts, issue 24 item 3): no bus topic is named outside
// it, every catalogue entry has a schema, and consumers parse what they receive, so a malformed
// payload never reaches a handler. The client types of platform/contracts/clients are checked at
// compile time against the schemas of the routes that serve them.
import fs from 'node:fs';
import path from 'node:path';
import { Kind, type Static } from '@sinclair/typebox';
import ts from 'typescript';
import type * as AiBrokerApi from '../../../platform/contracts/clients/ai-broker.api';
import type * as EventsApi from '../../../platform/contracts/clients/events.api';
import type * as IdentityApi from '../../../platform/contracts/clients/identity.api';
import type * as LedgerApi from '../../../platform/contracts/clients/ledger.api';
import type * as RulePackApi from '../../../platform/contracts/clients/rulepack-registry.api';
import type * as SchemaRegistryApi from '../../../platform/contracts/clients/schema-registry.api';
import type * as ValidationApi from '../../../platform/contracts/clients/validation.api';
import type * as WorkflowApi from '../../../platform/contracts/clients/workflow.api';
import { checkerOf, parsePayload } from '../../../platform/contracts/event-contract';
import { EVENT_CATALOGUE, contractOf } from '../../../platform/contracts/events.catalogue';
import { RULEPACK_CERTIFIED, RULEPACK_DEPRECATED } from '../../../platform/contracts/rulepack.events';
import { WORKFLOW_CHANGED, WORKFLOW_TRANSITION_EVENTS } from '../../../platform/contracts/workflow.events';
import { contractBus } from '../../../platform/events/contract-bus';
import { createMemoryEventBus } from '../../../platform/events/memory-event-bus';
import { pullOnNotify } from '../../../platform/events/pull-on-notify';
import type { Logger } from '../../../platform/logging/logger';
import type * as AiBrokerRest from '../../../rest-compat/ai-broker/ai-broker.schemas';
import type * as EventsRest from '../../../rest-compat/events/events.schemas';
import type * as IdentityRest from '../../../rest-compat/identity/identity.schemas';
import type * as LedgerRest from '../../../rest-compat/ledger/ledger.schemas';
import type * as RulePackRest from '../../../rest-compat/rulepack-registry/rulepack-registry.schemas';
import type * as SchemaRegistryRest from '../../../rest-compat/schema-registry/schema-registry.schemas';
import type * as ValidationRest from '../../../rest-compat/validation/validation.schemas';
import type * as WorkflowRest from '../../../rest-compat/workflow/workflow.schemas';
import { RulePackCatalogConsumer } from '../../../subgraphs/packs-registry/rulepack-catalog.consumer';
import type { PackStore } from '../../../subgraphs/packs-registry/pack.store';
import { strictFake } from '../../support/strict-fake';

const root = path.resolve(__dirname, '../../..');
/** Where source lives. Tests and bench/ may name topics: they are clients on the other side of the wire. */
const FOLDERS = ['platform', 'subgraphs', 'services', 'rest-compat', 'router', 'launcher', 'scripts'];
const CONTRACTS = path.join(root, 'platform', 'contracts') + path.sep;

function sources(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(full);
    return /\.(ts|mts|cts)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

interface Literal {
  file: string;
  line: number;
  text: string;
  node: ts.Node;
}

/** Every string literal of a file (comments are not literals, so prose naming a topic is fine). */
function literals(file: string): Literal[] {
  const text = fs.readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Literal[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      found.push({
        file: path.relative(root, file),
        line: sf.getLineAndCharacterOfPosition(node.getStart()).line + 1,
        text: node.text,
        node,
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

const files = FOLDERS.flatMap((f) => sources(path.join(root, f))).filter((f) => !f.startsWith(CONTRACTS));
const all = files.flatMap(literals);
const topics = new Set(EVENT_CATALOGUE.map((c) => c.topic));
const transitions = new Set<string>(WORKFLOW_TRANSITION_EVENTS);
const where = (l: Literal) => `${l.file}:${l.line} '${l.text}'`;

describe('topics are defined in platform/contracts only', () => {
  it('scans the real source (a broken scan would find nothing and pass)', () => {
    expect(files.length).toBeGreaterThan(200);
    expect(all.length).toBeGreaterThan(5000);
  });

  it('names no catalogued topic outside platform/contracts', () => {
    // The one exception: the workflow service's transition records are named by their event,
    // and each is published on the topic of that name; inside the workflow service those names
    // are the records' (checked against the contract below), not a second topic definition.
    const isTransitionRecord = (l: Literal) =>
      transitions.has(l.text) && l.file.startsWith(path.join('subgraphs', 'workflow') + path.sep);
    const stray = all.filter((l) => topics.has(l.text) && !isTransitionRecord(l)).map(where);
    expect(stray).toEqual([]);
  });

  it('names every workflow transition the contract knows (a new one needs a contract first)', () => {
    const named = all.filter(
      (l) =>
        l.file.startsWith(path.join('subgraphs', 'workflow') + path.sep) &&
        /^(workflow|step|approval)\.[a-z_]+$/.test(l.text),
    );
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((l) => !transitions.has(l.text)).map(where)).toEqual([]);
  });

  it('publishes and subscribes by contract, never by a topic written at the call', () => {
    const inline = all.filter((l) => {
      const call = l.node.parent;
      if (!call || !ts.isCallExpression(call) || call.arguments[0] !== l.node) return false;
      const callee = call.expression;
      return ts.isPropertyAccessExpression(callee) && ['publish', 'subscribe'].includes(callee.name.text);
    });
    expect(inline.map(where)).toEqual([]);
  });
});

describe('the event catalogue', () => {
  it('gives every topic once, with a version, producer, description and a compilable schema', () => {
    expect(EVENT_CATALOGUE.length).toBeGreaterThanOrEqual(7 + WORKFLOW_TRANSITION_EVENTS.length);
    expect(topics.size).toBe(EVENT_CATALOGUE.length);
    for (const c of EVENT_CATALOGUE) {
      expect(c.topic).toMatch(/^[a-z]+(\.[a-z_]+)+$/);
      expect(Number.isInteger(c.version) && c.version >= 1).toBe(true);
      expect(c.producer).toMatch(/^[a-z-]+$/);
      expect(c.description.length).toBeGreaterThan(10);
      expect(c.schema[Kind]).toBe('Object');
      expect(() => checkerOf(c)).not.toThrow();
      expect(contractOf(c.topic)).toBe(c);
    }
    expect(contractOf('no.such_topic')).toBeUndefined();
  });

  it('accepts the payloads producers send and rejects the wrong ones', () => {
    const notice = { pack_id: 'kyc.rules', version: '1.2.0', owner_tenant: 'acme', replacement: null };
    expect(parsePayload(RULEPACK_DEPRECATED, notice)).toEqual({ ok: true, value: notice });
    expect(parsePayload(RULEPACK_DEPRECATED, { ...notice, version: 'v1' }).ok).toBe(false);
    expect(parsePayload(RULEPACK_DEPRECATED, { ...notice, replacement: { pack_id: 'kyc.rules' } }).ok).toBe(false);
    const changed = { tenant_id: 'acme', workflow_id: 'w1', version: 3, seq: 17, event: 'step.completed' };
    expect(parsePayload(WORKFLOW_CHANGED, changed).ok).toBe(true);
    expect(parsePayload(WORKFLOW_CHANGED, { ...changed, version: '3' }).ok).toBe(false);
  });
});

describe('consumers parse what they receive', () => {
  const SECRET = 'sk-do-not-log-0123456789';

  function recordingLogger() {
    const lines: { obj: unknown; msg: string }[] = [];
    const warn = (obj: unknown, msg: string) => void lines.push({ obj, msg });
    return { lines, logger: { warn } as unknown as Pick<Logger, 'warn'> };
  }

  it('drops and logs a malformed payload (without its values), and delivers the next good one', async () => {
    const bus = createMemoryEventBus();
    const { lines, logger } = recordingLogger();
    const received: unknown[] = [];
    let arrived!: () => void;
    const good = new Promise<void>((resolve) => (arrived = resolve));
    await contractBus(bus, logger).subscribe(RULEPACK_DEPRECATED, (n) => {
      received.push(n);
      arrived();
    });
    // Published raw, as a buggy or foreign producer would: the contract bus's publish is typed.
    await bus.publish(RULEPACK_DEPRECATED.topic, { pack_id: SECRET, version: 12, owner_tenant: 'acme' });
    await bus.publish(RULEPACK_DEPRECATED.topic, { pack_id: 'kyc', version: '1.0.0', owner_tenant: 'acme' });
    await good;
    expect(received).toEqual([{ pack_id: 'kyc', version: '1.0.0', owner_tenant: 'acme' }]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      msg: 'malformed event dropped',
      obj: { topic: 'rulepack.deprecated', version: 1, producer: 'rulepack-registry' },
    });
    expect((lines[0]!.obj as { issues: { path: string }[] }).issues.map((i) => i.path)).toContain('/version');
    expect(JSON.stringify(lines)).not.toContain(SECRET);
    await bus.close();
  });

  it("the packs registry's catalog consumer never touches its store for a malformed notice", async () => {
    const { logger } = recordingLogger();
    const asked: string[] = [];
    const packs = strictFake<PackStore>(
      {
        ownerOf: async (packId: string) => void asked.push(packId),
        lockForUpdate: async () => undefined,
        insert: async () => undefined,
      } as unknown as Partial<PackStore>,
      'packs',
    );
    const handle = new RulePackCatalogConsumer(packs, logger as Logger).handler('certified');
    const stored = (data: unknown) => ({
      id: 'e1',
      tenantId: 'acme',
      topic: RULEPACK_CERTIFIED.topic,
      position: 1,
      source: 'urn:platform:service:rulepack-registry',
      type: RULEPACK_CERTIFIED.topic,
      specversion: '1.0' as const,
      time: new Date(0).toISOString(),
      subject: null,
      traceparent: null,
      data,
    });
    const delivery = { attempt: 1, leaseId: 'l1' };
    // A malformed payload throws (the durable consumer nacks it: retried, then dead-lettered), naming paths, not values.
    await expect(
      Promise.resolve().then(() =>
        handle(stored({ pack_id: 'bad pack id', version: '1.0.0', owner_tenant: SECRET }), delivery),
      ),
    ).rejects.toThrow(/malformed rulepack.certified v1 payload: \/pack_id/);
    await expect(Promise.resolve().then(() => handle(stored('not an object'), delivery))).rejects.toThrow(/malformed/);
    await handle(stored({ pack_id: 'kyc', version: '1.0.0', owner_tenant: 'acme' }), delivery);
    expect(asked).toEqual(['kyc']);
  });

  it('a pull-on-notify feed is not woken by a malformed notice', async () => {
    const bus = createMemoryEventBus();
    const { lines, logger } = recordingLogger();
    const woken: unknown[] = [];
    let reads = 0;
    let notified!: () => void;
    const second = new Promise<void>((resolve) => (notified = resolve));
    const feed = await pullOnNotify(
      bus,
      {
        contract: WORKFLOW_CHANGED,
        wakes: (n) => {
          woken.push(n);
          notified();
          return false;
        },
        read: async () => {
          reads++;
          return [];
        },
        pageSize: 10,
        positionOf: () => 0,
      },
      async () => 0,
      logger,
    );
    await bus.publish(WORKFLOW_CHANGED.topic, { tenant_id: 'acme', workflow_id: 'w1' });
    await bus.publish(WORKFLOW_CHANGED.topic, {
      tenant_id: 'acme',
      workflow_id: 'w1',
      version: 2,
      seq: 5,
      event: 'step.started',
    });
    await second;
    expect(woken).toEqual([{ tenant_id: 'acme', workflow_id: 'w1', version: 2, seq: 5, event: 'step.started' }]);
    expect(lines).toHaveLength(1);
    expect(reads).toBe(0);
    await feed.return!();
    await bus.close();
  });
});

// Compile-time: what each route serves is assignable to what its client expects, and what the
// client sends is assignable to what the route accepts. A drift fails `npm run typecheck`.
type Assignable<From, To> = [From] extends [To] ? true : false;
/** A body as a client may send it: the fields the route fills with a default may be left out. */
type WithDefaults<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;
const clientContracts: [
  Assignable<Static<typeof RulePackRest.VersionView>, RulePackApi.RulePackVersionView>,
  Assignable<Static<typeof RulePackRest.KeySet>, RulePackApi.RulePackKeySet>,
  Assignable<LedgerApi.LedgerAppendRequest, Static<typeof LedgerRest.AppendBody>>,
  Assignable<Static<typeof LedgerRest.AppendResponse>, LedgerApi.LedgerAppendResponse>,
  Assignable<LedgerApi.LedgerInclusionBatchRequest, Static<typeof LedgerRest.InclusionBatchBody>>,
  Assignable<Static<typeof LedgerRest.InclusionBatchResponse>, LedgerApi.LedgerInclusionBatch>,
  Assignable<Static<typeof IdentityRest.VerifyResponse>, IdentityApi.VerifyResponse>,
  Assignable<
    ValidationApi.ValidateRequest,
    WithDefaults<Static<typeof ValidationRest.ValidateBody>, 'payload_format' | 'validation_type' | 'strict_mode'>
  >,
  Assignable<Static<typeof ValidationRest.ValidateResponse>, ValidationApi.ValidateResponse>,
  Assignable<Static<typeof SchemaRegistryRest.SchemaVersionView>, SchemaRegistryApi.SchemaVersionView>,
  Assignable<Static<typeof SchemaRegistryRest.SchemaSummary>, SchemaRegistryApi.SchemaSummary>,
  Assignable<SchemaRegistryApi.RegisterSchemaRequest, Static<typeof SchemaRegistryRest.RegisterBody>>,
  Assignable<AiBrokerApi.InferenceRequest, Static<typeof AiBrokerRest.InferenceBody>>,
  Assignable<Static<typeof AiBrokerRest.InferenceResponse>, AiBrokerApi.InferenceResponse>,
  Assignable<EventsApi.PublishEventRequest, Static<typeof EventsRest.PublishBody>>,
  Assignable<Static<typeof EventsRest.PublishResponse>, EventsApi.PublishEventResponse>,
  Assignable<EventsApi.CreateSubscriptionRequest, Static<typeof EventsRest.CreateSubscriptionBody>>,
  Assignable<Static<typeof EventsRest.SubscriptionSchema>, EventsApi.SubscriptionView>,
  Assignable<Static<typeof EventsRest.MessageList>, EventsApi.PulledMessages>,
  Assignable<Static<typeof EventsRest.DeadLetterSchema>, EventsApi.DeadLetterView>,
  Assignable<WorkflowApi.ExecuteWorkflowRequest, Static<typeof WorkflowRest.ExecuteBody>>,
  Assignable<Static<typeof WorkflowRest.ExecuteResponse>, WorkflowApi.ExecuteWorkflowResponse>,
  Assignable<Static<typeof WorkflowRest.StatusResponse>, WorkflowApi.WorkflowStatusView>,
  Assignable<WorkflowApi.DecideApprovalRequest, Static<typeof WorkflowRest.ApproveBody>>,
  Assignable<Static<typeof WorkflowRest.ApproveResponse>, WorkflowApi.DecideApprovalResponse>,
] = [
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
];

it('checks the client contracts at compile time', () => {
  expect(clientContracts.every(Boolean)).toBe(true);
});
