// The ledger's checkpoint settings (docs/ledger.md, "Checkpoints"), read once at start.
import { readInt, readOptional } from '../../platform/config/env';
import type { ProofOptions } from './ledger-proof.service';

export interface CheckpointConfig extends ProofOptions {
  /** PKCS8 PEM of the Ed25519 signing key; unset: a development key kept in the database. */
  privateKeyPem: string | undefined;
}

export function readCheckpointConfig(env: Record<string, string | undefined>): CheckpointConfig {
  return {
    every: readInt(env, 'LEDGER_CHECKPOINT_EVERY', 1000, { min: 1, max: 10_000_000 }),
    intervalMs: readInt(env, 'LEDGER_CHECKPOINT_INTERVAL_MS', 60_000, { min: 0, max: 86_400_000 }),
    onDemandPerMinute: readInt(env, 'LEDGER_CHECKPOINT_REQUESTS_PER_MINUTE', 6, { min: 1, max: 10_000 }),
    privateKeyPem: readOptional(env, 'LEDGER_CHECKPOINT_PRIVATE_KEY'),
  };
}
