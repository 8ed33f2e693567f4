// The packs registry's own settings, read once at build time. The registries it calls are found
// by the platform's service addresses (packs-registry.module.ts).
import { serviceRequiresAuth } from '../../platform/config/platform.config';
import type { Env } from '../../platform/service';

export interface PacksRegistryConfig {
  /**
   * PACKS_REGISTRY_REQUIRE_AUTH, else REQUIRE_AUTH, else true. Without a token, reads act in
   * X-Tenant-ID's tenant; submissions and promotions always need one (they name a person).
   */
  requireAuth: boolean;
}

export function loadPacksRegistryConfig(env: Env): PacksRegistryConfig {
  return { requireAuth: serviceRequiresAuth(env, { name: 'packs-registry' }) };
}
