// The record types a retention policy can name, their legal minimums (platform configuration:
// no tenant may keep a type for less), and the shapes policies and holds take everywhere.
import { readInt } from '../config/env';
import type { Env } from '../service';

export const RECORD_TYPES = [
  'ocr_job',
  'rag_document',
  'rag_conversation',
  'ai_usage',
  'workflow_payload',
  'ingestion_batch',
] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

export function isRecordType(value: string): value is RecordType {
  return (RECORD_TYPES as readonly string[]).includes(value);
}

/**
 * Defaults of RETENTION_MIN_DAYS_<TYPE>. Placeholders to be set per jurisdiction: usage feeds
 * billing and budgets (a year), workflow payloads back decisions under review (a quarter),
 * ingestion batches are staged data a downstream job takes within days (a month).
 */
const DEFAULT_MIN_DAYS: Record<RecordType, number> = {
  ocr_job: 30,
  rag_document: 30,
  rag_conversation: 1,
  ai_usage: 365,
  workflow_payload: 90,
  ingestion_batch: 30,
};

/** The longest policy accepted: 100 years. */
export const MAX_RETAIN_DAYS = 36_500;

export type LegalMinimums = Record<RecordType, number>;

export function loadLegalMinimums(env: Env): LegalMinimums {
  return Object.fromEntries(
    RECORD_TYPES.map((t) => [
      t,
      readInt(env, `RETENTION_MIN_DAYS_${t.toUpperCase()}`, DEFAULT_MIN_DAYS[t], { min: 0, max: MAX_RETAIN_DAYS }),
    ]),
  ) as LegalMinimums;
}

export interface RetentionPolicy {
  tenantId: string;
  recordType: RecordType;
  retainDays: number;
  updatedBy: string | null;
  updatedAt: Date;
}

export interface LegalHold {
  id: string;
  tenantId: string;
  /** Null: every record type. */
  recordType: RecordType | null;
  /** Null: every subject (or the subject was erased after the hold's release). */
  subjectId: string | null;
  subjectRef: string | null;
  reason: string;
  placedBy: string | null;
  placedAt: Date;
  releasedBy: string | null;
  releasedAt: Date | null;
}

/** Whether an active hold covers a record type (a hold naming no type covers them all). */
export function holdCovers(hold: Pick<LegalHold, 'recordType'>, recordType: RecordType): boolean {
  return hold.recordType === null || hold.recordType === recordType;
}
