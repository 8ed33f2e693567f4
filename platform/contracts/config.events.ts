// The config service's topic: one notice per change put in force (a promotion stage, a rollback),
// written in the notice outbox with the change, so a committed change is always announced (at
// least once). Consumers (the in-process config clients, the scanner) re-read what they need;
// the notice names the change, never a value (a bundle may hold secret references).
import { Type, type Static } from '@sinclair/typebox';
import { eventContract } from './event-contract';
import { Timestamp } from './contract.types';

export const ConfigChangedSchema = Type.Object(
  {
    /** The tenant of a tenant-layer change; null for the platform, suite and module layers (every tenant may be affected). */
    tenant_id: Type.Union([Type.String({ minLength: 1, maxLength: 255 }), Type.Null()]),
    layer: Type.Union([
      Type.Literal('platform'),
      Type.Literal('suite'),
      Type.Literal('module'),
      Type.Literal('tenant'),
    ]),
    scope: Type.String({ maxLength: 255 }),
    namespace: Type.String({ minLength: 1, maxLength: 100 }),
    bundle_id: Type.String({ minLength: 1 }),
    version: Type.Integer({ minimum: 1 }),
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
    /** The config change log's position: `/effective?as_of=<seq>` reproduces the configuration from here on. */
    seq: Type.Integer({ minimum: 1 }),
    percentage: Type.Integer({ minimum: 0, maximum: 100 }),
    kind: Type.Union([Type.Literal('promote'), Type.Literal('rollback')]),
    at: Timestamp,
  },
  { $id: 'config.changed.v1' },
);
export type ConfigChanged = Static<typeof ConfigChangedSchema>;

export const CONFIG_CHANGED = eventContract({
  topic: 'config.changed',
  version: 1,
  schema: ConfigChangedSchema,
  producer: 'config',
  consumers: ['gateway', 'ai-broker', 'scanner'],
  description: 'A configuration bundle was put in force (a rollout stage or a rollback) for a layer and namespace.',
});
