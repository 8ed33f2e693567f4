// The schema registry's own settings, read once at build time.
import { serviceRequiresAuth } from '../../platform/config/platform.config';
import type { Env } from '../../platform/service';

export interface SchemaRegistryConfig {
  /**
   * SCHEMA_REGISTRY_REQUIRE_AUTH, else REQUIRE_AUTH, else true. Without a token, reads act in
   * X-Tenant-ID's tenant; registrations always need one.
   */
  requireAuth: boolean;
}

export function loadSchemaRegistryConfig(env: Env): SchemaRegistryConfig {
  return { requireAuth: serviceRequiresAuth(env, { name: 'schema-registry' }) };
}
