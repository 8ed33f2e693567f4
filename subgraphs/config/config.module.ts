// Wires the config service's domain: the schema registry (namespace schemas) and workflow
// (promotion approvals) clients with the service's identity, the signer, the tenant access rule
// (an operator's access to a tenant reaches that tenant's ledger through the outbox), and the
// hook that refreshes what this process serves after each committed change.
import type { DelegatedIdentity } from '../../platform/auth/service-identity';
import { NO_MFA_POLICY, type MfaPolicy } from '../../platform/auth/mfa';
import { operatorAccessData, OPERATOR_ACCESS_EVENT, TenantAccess } from '../../platform/auth/tenant-access';
import { SchemaRegistryClient } from '../../platform/clients/schema-registry.client';
import { WorkflowClient } from '../../platform/clients/workflow.client';
import type { Database } from '../../platform/db/database';
import { auditEvent, sqlOutboxWriter } from '../../platform/outbox/outbox.writer';
import { BundleService } from './bundle.service';
import type { ConfigConfig } from './config.config';
import { ConfigSigner } from './config-signer';
import type { Change } from './config.types';
import { EffectiveService } from './effective.service';
import { FlagService } from './flag.service';
import { registryNamespaceSchemas, type NamespaceSchemas } from './namespace-schemas';
import { RolloutService } from './rollout.service';
import type { SecretBackend } from './secret-reference';

export interface ConfigModule {
  bundles: BundleService;
  effective: EffectiveService;
  rollouts: RolloutService;
  flags: FlagService;
  signer: ConfigSigner;
}

export interface ConfigModuleOptions {
  identity?: DelegatedIdentity;
  mfa?: MfaPolicy;
  /** After a change committed (the notice relay's wake-up). */
  onChange?: (change: Change) => void;
  /** Stand-ins (tests). */
  schemas?: NamespaceSchemas;
  workflow?: Pick<WorkflowClient, 'execute' | 'status'>;
  secretBackend?: SecretBackend;
}

export function createConfigModule(
  db: Database,
  config: ConfigConfig,
  options: ConfigModuleOptions = {},
): ConfigModule {
  const access = new TenantAccess(
    (a) =>
      sqlOutboxWriter(db.sql, 'config').append(
        auditEvent(a, {
          tenantId: a.tenantId,
          type: OPERATOR_ACCESS_EVENT,
          actor: a.operator,
          data: operatorAccessData(a),
        }),
      ),
    options.mfa ?? NO_MFA_POLICY,
  );
  const schemas =
    options.schemas ?? registryNamespaceSchemas(new SchemaRegistryClient(config.schemaRegistryUrl, options.identity));
  const workflow = options.workflow ?? new WorkflowClient(config.workflowUrl, options.identity);
  const signer = new ConfigSigner(db.sql, config.signingKeyPem);
  const effective = new EffectiveService(db, access, config.secrets, options.secretBackend);
  const rollouts = new RolloutService(db, access, workflow, signer, {
    async changed(change) {
      await effective.refresh(change);
      options.onChange?.(change);
    },
  });
  return {
    bundles: new BundleService(db, access, schemas, config.secrets),
    effective,
    rollouts,
    flags: new FlagService(effective),
    signer,
  };
}
