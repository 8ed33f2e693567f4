// The registry: the one place that lists the platform's services. Adding a service is one line
// in SERVICES (docs/adding-a-service.md); ports, gateway backends and /api/v1 routes, router
// subgraphs (supergraph.yaml is checked against this list), the outbox relay's producers and the
// test suites' service lists all derive from it. Order matters for the all-in-one start: the
// gateway comes last, once the services behind it listen.
import type { ServiceDefinition, ServiceManifest } from '../platform/service';
import { gatewayService } from '../services/gateway';
import { aiBrokerService } from '../services/ai-broker';
import { observabilityService } from '../services/observability';
import { complianceService } from '../services/compliance';
import { configService } from '../services/config';
import { dataflowService } from '../services/dataflow';
import { complianceScannerService } from '../services/compliance-scanner';
import { eventsService } from '../services/events';
import { identityService } from '../services/identity';
import { ingestionService } from '../services/ingestion';
import { ledgerService } from '../services/ledger';
import { ocrService } from '../services/ocr';
import { packsRegistryService } from '../services/packs-registry';
import { ragService } from '../services/rag';
import { rulePackRegistryService } from '../services/rulepack-registry';
import { schemaRegistryService } from '../services/schema-registry';
import { validationService } from '../services/validation';
import { workflowService } from '../services/workflow';

export const SERVICES: readonly ServiceDefinition[] = [
  identityService,
  ledgerService,
  schemaRegistryService,
  rulePackRegistryService,
  packsRegistryService,
  validationService,
  aiBrokerService,
  workflowService,
  ocrService,
  ragService,
  eventsService,
  complianceService,
  configService,
  observabilityService,
  ingestionService,
  dataflowService,
  complianceScannerService,
  gatewayService,
];

/**
 * Services spec 01 documents that this platform does not run yet: the gateway knows their ports
 * and /api/v1 routes (answering 503 "not running or not deployed" until one is up). Each moves
 * into SERVICES, with its own manifest, when it is built.
 */
export const PLANNED_SERVICES: readonly ServiceManifest[] = [];

/** Everything the platform knows of, built or planned. */
export function registryOf(services: readonly ServiceDefinition[] = SERVICES): ServiceManifest[] {
  return [...services, ...PLANNED_SERVICES.filter((p) => !services.some((s) => s.name === p.name))];
}

export function manifestOf(name: string, registry: readonly ServiceManifest[] = registryOf()): ServiceManifest {
  const found = registry.find((s) => s.name === name);
  if (!found) throw new Error(`no service named '${name}' in the registry`);
  return found;
}
