// Every event contract of the platform, in one list: the events service seeds its topic catalog
// from it, the schema registry registers each as `events.<topic>` version `<version>.0.0`, and the guard test
// (test/unit/platform/contracts.test.ts) holds the code to it: no topic is named outside this
// folder, and every entry has a schema. A new topic is added to its `*.events.ts` and here.
import type { EventContract } from './event-contract';
import { CONFIG_CHANGED } from './config.events';
import { COMPLIANCE_RULE_EXECUTION, COMPLIANCE_WORKFLOW_EVENT } from './compliance.events';
import { EVENTS_EVENT_PUBLISHED } from './events.events';
import { OCR_JOB_COMPLETED, RAG_DOCUMENT_INGESTED } from './ingestion.events';
import { LEDGER_EVENT_APPENDED } from './ledger.events';
import { OBSERVABILITY_ALERT } from './observability.events';
import {
  DATAFLOW_RECONCILIATION_COMPLETED,
  DATAFLOW_RUN_CHANGED,
  INGESTION_COMPLETED,
  INGESTION_FAILED,
  SCANNER_FINDING,
  SCANNER_SCAN_CHANGED,
} from './pipeline.events';
import { RULEPACK_CERTIFIED, RULEPACK_DEPRECATED } from './rulepack.events';
import { WORKFLOW_CHANGED, WORKFLOW_NOTIFICATION, WORKFLOW_TRANSITIONS } from './workflow.events';

export const EVENT_CATALOGUE: readonly EventContract[] = Object.freeze([
  RULEPACK_CERTIFIED,
  RULEPACK_DEPRECATED,
  LEDGER_EVENT_APPENDED,
  EVENTS_EVENT_PUBLISHED,
  COMPLIANCE_RULE_EXECUTION,
  COMPLIANCE_WORKFLOW_EVENT,
  WORKFLOW_CHANGED,
  WORKFLOW_NOTIFICATION,
  OCR_JOB_COMPLETED,
  RAG_DOCUMENT_INGESTED,
  INGESTION_COMPLETED,
  INGESTION_FAILED,
  DATAFLOW_RECONCILIATION_COMPLETED,
  DATAFLOW_RUN_CHANGED,
  SCANNER_FINDING,
  SCANNER_SCAN_CHANGED,
  CONFIG_CHANGED,
  OBSERVABILITY_ALERT,
  ...Object.values(WORKFLOW_TRANSITIONS),
]);

/** The contract of a topic, if the platform has one. */
export function contractOf(topic: string): EventContract | undefined {
  return EVENT_CATALOGUE.find((c) => c.topic === topic);
}
