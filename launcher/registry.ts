// The composition root: the one place that knows every service. Order matters for the
// all-in-one start: the gateway comes last, once the services behind it listen.
import type { ServiceDefinition } from '../platform/service';
import { gatewayService } from '../router';
import { identityService } from '../subgraphs/identity';
import { ledgerService } from '../subgraphs/ledger';

export const SERVICES: ServiceDefinition[] = [identityService, ledgerService, gatewayService];

/** Services that write audit events to the outbox (delivered to the ledger by the relay). */
export const OUTBOX_PRODUCERS = new Set<string>(['identity']);
