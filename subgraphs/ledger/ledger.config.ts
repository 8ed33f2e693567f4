// The ledger service's own settings, parsed once at build time with the platform's env helpers,
// so a bad value stops the service with a message naming the variable.
import { readInt } from '../../platform/config/env';
import { serviceRequiresAuth } from '../../platform/config/platform.config';
import type { Env } from '../../platform/service';

export interface LedgerConfig {
  /**
   * A token is required (a write needs the `write` or `ledger:write` scope): anonymous writes
   * could forge anyone's trail. LEDGER_REQUIRE_AUTH, else REQUIRE_AUTH, else true
   * (serviceRequiresAuth); false restores the spec's trust-the-gateway mode (tests, a sealed network).
   */
  requireAuth: boolean;
  /** How often the notice relay looks for committed rows nobody woke it for (LEDGER_NOTICE_POLL_MS). */
  noticePollMs: number;
}

export function loadLedgerConfig(env: Env): LedgerConfig {
  return {
    requireAuth: serviceRequiresAuth(env, { name: 'ledger' }),
    noticePollMs: readInt(env, 'LEDGER_NOTICE_POLL_MS', 250, { min: 10, max: 60_000 }),
  };
}
