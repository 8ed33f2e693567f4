// The ledger service's own settings, parsed once at build time with the platform's env helpers,
// so a bad value stops the service with a message naming the variable.
import { readInt, readOptional } from '../../platform/config/env';
import { serviceRequiresAuth } from '../../platform/config/platform.config';
import type { Env } from '../../platform/service';
import type { ProofOptions } from './ledger-proof.service';

export interface LedgerConfig {
  /**
   * A token is required (a write needs the `write` or `ledger:write` scope): anonymous writes
   * could forge anyone's trail. LEDGER_REQUIRE_AUTH, else REQUIRE_AUTH, else true
   * (serviceRequiresAuth); false restores the spec's trust-the-gateway mode (tests, a sealed network).
   */
  requireAuth: boolean;
  /** How often the notice relay looks for committed rows nobody woke it for (LEDGER_NOTICE_POLL_MS). */
  noticePollMs: number;
  /** Checkpoints and their signing key (docs/ledger.md, "Proofs"). */
  checkpoints: CheckpointConfig;
}

export interface CheckpointConfig extends ProofOptions {
  /** PKCS8 PEM of the Ed25519 signing key; unset: a development key kept in the database. */
  privateKeyPem: string | undefined;
}

export function loadLedgerConfig(env: Env): LedgerConfig {
  return {
    requireAuth: serviceRequiresAuth(env, { name: 'ledger' }),
    noticePollMs: readInt(env, 'LEDGER_NOTICE_POLL_MS', 250, { min: 10, max: 60_000 }),
    checkpoints: {
      every: readInt(env, 'LEDGER_CHECKPOINT_EVERY', 1000, { min: 1, max: 10_000_000 }),
      intervalMs: readInt(env, 'LEDGER_CHECKPOINT_INTERVAL_MS', 60_000, { min: 0, max: 86_400_000 }),
      onDemandPerMinute: readInt(env, 'LEDGER_CHECKPOINT_REQUESTS_PER_MINUTE', 6, { min: 1, max: 10_000 }),
      privateKeyPem: readOptional(env, 'LEDGER_CHECKPOINT_PRIVATE_KEY'),
    },
  };
}
