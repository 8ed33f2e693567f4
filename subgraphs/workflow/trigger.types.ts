// Workflow triggers (spec 03's event-driven cross-suite workflows): a tenant's standing order to
// start a certified workflow pack when an event of the pack's `trigger.topic` arrives and its data
// satisfies `trigger.filter`. Records as the store keeps them; nothing here knows HTTP or GraphQL.
import type { Condition, WorkflowType } from './workflow.types';

export interface WorkflowTrigger {
  id: string;
  tenantId: string;
  packId: string;
  /** Pinned when the trigger was created: a new pack version needs a new trigger (reviewed again). */
  packVersion: string;
  workflowType: WorkflowType;
  topic: string;
  filter: Condition | null;
  createdBy: string | null;
  createdAt: string;
}

export interface CreateTriggerInput {
  workflowPackId?: string;
  /** The certified version to pin; the newest certified one when absent. */
  workflowPackVersion?: string;
  workflowType?: string;
}

/** The event a trigger fires on, as the backbone stored it. */
export interface TriggerEvent {
  id: string;
  tenantId: string;
  topic: string;
  source: string;
  type: string;
  subject: string | null;
  time: string;
  position: number;
  data: unknown;
}
