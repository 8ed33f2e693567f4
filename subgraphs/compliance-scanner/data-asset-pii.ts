// Unmasked PII in a data asset's records (issue 34, "Data assets"): a sample of records (e.g. an
// ingested batch's staged records, read through the typed IngestionClient's `allRecords`) is
// walked field by field and every string is run through the platform's own detectors
// (platform/redaction: email, SSN, card, phone, with their checksums and context), in their
// priority order, so one span is one category. A masked value no longer matches, so what is found
// is PII left in the clear. A sighting names the asset, the record's offset, the field (a JSONPath)
// and the span's [start, end) and category: never the value, which must not travel into findings,
// notices, SARIF or logs. Where the records come from: data-asset-source.ts.
import { BUILT_IN_DETECTORS, type PiiCategory } from '../../platform/redaction';

/** One record of a data asset: its offset in the sample and, where the asset names it so, where it is. */
export interface SampledRecord {
  offset: number;
  data: unknown;
  /** Where the record is, e.g. `retrieval:document/<id>/chunks/3`; absent: `<asset>/records/<offset>`. */
  at?: string;
}

export interface PiiSighting {
  /** The asset, e.g. `ingestion:batch/<id>`. */
  asset: string;
  /** The record's offset in the asset. */
  offset: number;
  /** The record's own location, when the asset gives one (see SampledRecord). */
  at?: string;
  /** JSONPath of the field inside the record, e.g. `$.customer.emails[1]`. */
  field: string;
  category: PiiCategory;
  start: number;
  end: number;
}

export interface PiiSample {
  sightings: PiiSighting[];
  recordsSampled: number;
  /** More sightings than `maxSightings` were found (the list is cut). */
  truncated: boolean;
}

export interface PiiSampleLimits {
  /** Records read at most (the sample). */
  maxRecords?: number;
  /** Sightings kept at most. */
  maxSightings?: number;
  /** Nesting followed at most. */
  maxDepth?: number;
  /** Characters of one string examined at most. */
  maxStringLength?: number;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return IDENTIFIER.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

/** The detectors' spans in one text, earlier detectors winning overlaps (the redactor's rule). */
export function piiSpans(text: string): { category: PiiCategory; start: number; end: number }[] {
  const spans: { category: PiiCategory; start: number; end: number }[] = [];
  for (const detector of BUILT_IN_DETECTORS) {
    detector.find(text, (start, end) => {
      if (!spans.some((s) => s.start < end && start < s.end)) spans.push({ category: detector.category, start, end });
    });
  }
  return spans.sort((a, b) => a.start - b.start);
}

/** Samples `records` (offset order) for unmasked PII; stops reading at `maxRecords`. */
export async function samplePii(
  asset: string,
  records: AsyncIterable<SampledRecord> | Iterable<SampledRecord>,
  limits: PiiSampleLimits = {},
): Promise<PiiSample> {
  const maxRecords = limits.maxRecords ?? 1000;
  const maxSightings = limits.maxSightings ?? 1000;
  const maxDepth = limits.maxDepth ?? 32;
  const maxStringLength = limits.maxStringLength ?? 64 * 1024;
  const sightings: PiiSighting[] = [];
  let truncated = false;
  let recordsSampled = 0;

  const walk = (record: SampledRecord, value: unknown, field: string, depth: number): void => {
    if (truncated || depth > maxDepth) return;
    if (typeof value === 'string') {
      for (const span of piiSpans(value.slice(0, maxStringLength))) {
        if (sightings.length >= maxSightings) {
          truncated = true;
          return;
        }
        sightings.push({ asset, offset: record.offset, ...(record.at ? { at: record.at } : {}), field, ...span });
      }
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => walk(record, v, childPath(field, i), depth + 1));
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(record, v, childPath(field, k), depth + 1);
    }
  };

  if (maxRecords > 0)
    for await (const record of records) {
      recordsSampled++;
      walk(record, record.data, '$', 0);
      // Checked after the record, so no record past the sample is read from the source.
      if (recordsSampled >= maxRecords || truncated) break;
    }
  return { sightings, recordsSampled, truncated };
}
