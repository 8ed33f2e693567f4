// What the parts of the executor share: its dependencies (the scheduler's and every run's), the
// outcome of walking a step, and the view of one run that its compensation works through.
import type { ServiceCallContext } from '../../platform/clients/service-request';
import type { Logger } from '../../platform/logging/logger';
import type { RunJournal } from './execution.journal';
import type { StepRunner } from './step.runner';
import type { WorkflowConfig } from './workflow.config';
import type { WorkflowEvents } from './workflow.events';
import type { WorkflowStore } from './workflow.store';
import type { PackStep } from './workflow.types';

export interface ExecutorDeps {
  store: WorkflowStore;
  runner: StepRunner;
  events: WorkflowEvents;
  config: WorkflowConfig;
  logger: Logger;
  /** A token for calls made when no caller's token is at hand (resumed runs): the workflow service's own, acting in the tenant. */
  serviceToken(tenantId: string): Promise<string>;
  /** An id for this executor (tests run two in one process). */
  owner?: string;
}

/** Where walking a step (or a sequence of them) left the saga. */
export type Outcome = 'done' | 'suspended' | 'failed' | 'rejected';

/** One run as its compensation sees it (execution.compensation.ts). */
export interface RunScope {
  readonly deps: ExecutorDeps;
  readonly journal: RunJournal;
  /** The pack's steps by path (stepsByPath). */
  readonly steps: Map<string, PackStep>;
  /** The data a step sees: the payload with earlier steps' outputs. */
  data(): Record<string, unknown>;
  /** Token, tenant and correlation id for the step's calls. */
  callContext(): Promise<ServiceCallContext>;
}
