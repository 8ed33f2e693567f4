// The workflow service's settings, parsed once at build time with the platform's env helpers, so
// a bad value stops the service with a message naming the variable.
import { readBool, readInt, readOptional } from '../../platform/config/env';
import { serviceRequiresAuth, serviceUrl } from '../../platform/config/platform.config';
import type { Env, ServiceManifest } from '../../platform/service';

export interface WorkflowConfig {
  /** A token on every route: WORKFLOW_REQUIRE_AUTH, else REQUIRE_AUTH, else true (serviceRequiresAuth). */
  requireAuth: boolean;
  /** WORKFLOW_REQUIRE_REGISTERED_PACKS: a pack id the registry does not know is a 404, not the built-in pack. */
  requireRegisteredPacks: boolean;
  /** Financial work above this amount (payload `amount`) needs a human approval. */
  financialApprovalThreshold: number;
  /** How long an executor's claim on an execution lasts without renewal. */
  leaseMs: number;
  /** How often the executor looks for runnable executions and due timers. */
  pollMs: number;
  /** Executions one executor drives at once. */
  concurrency: number;
  /**
   * Group writes one executor keeps in flight (WORKFLOW_WRITE_TRANSACTIONS): the runs' writes
   * made meanwhile wait and go out together in the next one. Each holds one of the process's
   * pooled connections. One by default: a group is one statement (run-write.store.ts), so the
   * next one waits a single round trip, and larger groups cost fewer commits and relay passes
   * per execution than two smaller ones (docs/benchmarks.md, eleventh session).
   */
  writeTransactions: number;
  /** Attempts of a step (retryable failures) before the saga compensates. */
  stepMaxAttempts: number;
  /** Attempts of one compensation before it is parked for an operator. */
  compensationMaxAttempts: number;
  /** First retry delay; doubled per attempt. */
  retryBaseMs: number;
  /** How long POST /execute (and an approval) waits for the saga to settle before answering `running`. */
  syncWaitMs: number;
  /** An approval task escalates when undecided this long (and again each time after). */
  approvalDeadlineMs: number;
  /** Hosts the `http` action may call (`*` = any); WORKFLOW_HTTP_ALLOWED_HOSTS, comma-separated host[:port]. */
  httpAllowedHosts: string[] | '*';
  /** Timeout of one action's HTTP call. */
  httpTimeoutMs: number;
  packsRegistryUrl: string;
  validationUrl: string;
  /** The AI broker (ai steps): AI_BROKER_URL, else its registry port. */
  aiBrokerUrl: string;
  /** DataFlow (dataflow steps): DATAFLOW_URL, else its registry port. */
  dataflowUrl: string;
  /** Workflow triggers' consumers: deliveries of an event before the dead-letter queue. */
  triggerMaxDeliveries: number;
  /** First redelivery delay of an event whose trigger failed; doubled per attempt. */
  triggerBackoffMs: number;
  /** How often a process looks for topics other processes' triggers need. */
  triggerRefreshMs: number;
}

const PACKS_REGISTRY = { name: 'packs-registry', port: 8089 };
const VALIDATION = { name: 'validation', port: 8083 };
const AI_BROKER = { name: 'ai-broker', port: 8085 };
const DATAFLOW = { name: 'dataflow', port: 8145 };

function addressOf(
  registry: readonly ServiceManifest[],
  fallback: { name: string; port: number },
): { name: string; port: number } {
  return registry.find((s) => s.name === fallback.name) ?? fallback;
}

export function loadWorkflowConfig(env: Env, registry: readonly ServiceManifest[]): WorkflowConfig {
  const hosts = readOptional(env, 'WORKFLOW_HTTP_ALLOWED_HOSTS');
  return {
    requireAuth: serviceRequiresAuth(env, { name: 'workflow' }),
    requireRegisteredPacks: readBool(env, 'WORKFLOW_REQUIRE_REGISTERED_PACKS', false),
    financialApprovalThreshold: readInt(env, 'WORKFLOW_FINANCIAL_APPROVAL_THRESHOLD', 10_000, { min: 0 }),
    leaseMs: readInt(env, 'WORKFLOW_LEASE_SECONDS', 30, { min: 1, max: 3600 }) * 1000,
    pollMs: readInt(env, 'WORKFLOW_POLL_MS', 250, { min: 10, max: 60_000 }),
    concurrency: readInt(env, 'WORKFLOW_CONCURRENCY', 16, { min: 1, max: 1000 }),
    writeTransactions: readInt(env, 'WORKFLOW_WRITE_TRANSACTIONS', 1, { min: 1, max: 64 }),
    stepMaxAttempts: readInt(env, 'WORKFLOW_STEP_MAX_ATTEMPTS', 3, { min: 1, max: 100 }),
    compensationMaxAttempts: readInt(env, 'WORKFLOW_COMPENSATION_MAX_ATTEMPTS', 5, { min: 1, max: 100 }),
    retryBaseMs: readInt(env, 'WORKFLOW_RETRY_BASE_MS', 200, { min: 1, max: 600_000 }),
    syncWaitMs: readInt(env, 'WORKFLOW_SYNC_WAIT_MS', 10_000, { min: 0, max: 120_000 }),
    approvalDeadlineMs: readInt(env, 'WORKFLOW_APPROVAL_DEADLINE_SECONDS', 86_400, { min: 1 }) * 1000,
    httpAllowedHosts:
      hosts === undefined || hosts.trim() === '*'
        ? '*'
        : hosts
            .split(',')
            .map((h) => h.trim().toLowerCase())
            .filter(Boolean),
    httpTimeoutMs: readInt(env, 'WORKFLOW_HTTP_TIMEOUT_MS', 10_000, { min: 100, max: 300_000 }),
    packsRegistryUrl: serviceUrl(env, addressOf(registry, PACKS_REGISTRY)),
    validationUrl: serviceUrl(env, addressOf(registry, VALIDATION)),
    aiBrokerUrl: serviceUrl(env, addressOf(registry, AI_BROKER)),
    dataflowUrl: serviceUrl(env, addressOf(registry, DATAFLOW)),
    triggerMaxDeliveries: readInt(env, 'WORKFLOW_TRIGGER_MAX_DELIVERIES', 5, { min: 1, max: 100 }),
    triggerBackoffMs: readInt(env, 'WORKFLOW_TRIGGER_BACKOFF_MS', 1000, { min: 1, max: 3_600_000 }),
    triggerRefreshMs: readInt(env, 'WORKFLOW_TRIGGER_REFRESH_MS', 30_000, { min: 10, max: 3_600_000 }),
  };
}
