// Metric samples and series (docs/observability.md "Metrics received"): the records the OTLP
// decoder produces, the store keeps and the series query answers, and their limits.
import type { Matchers } from './alert.types';

/** The tenant key of a platform series (no tenant): readable by platform operators only. */
export const PLATFORM_SERIES = '';

/** One value of one series, as received (a histogram point becomes several of these). */
export interface MetricPoint {
  /** The tenant the point is about, or PLATFORM_SERIES. */
  tenant: string;
  name: string;
  labels: Record<string, string>;
  /** Milliseconds since the epoch. */
  time: number;
  value: number;
}

export interface SeriesQuery {
  metric: string;
  matchers?: Matchers;
  /** ISO 8601; default: `to` minus one hour. */
  from?: string;
  /** ISO 8601; default: now. */
  to?: string;
  /** The width of one point; default: the window over 120, at least 1 s. */
  stepSeconds?: number;
  /** Per-second increase per step (counters) instead of the last value per step. */
  rate?: boolean;
  /** 'tenant' (default): the tenant's series; 'platform': platform series (platform operators). */
  scope?: 'tenant' | 'platform';
}

export interface SeriesPoint {
  /** The step's start, ISO 8601. */
  t: string;
  v: number;
}

export interface MetricSeries {
  metric: string;
  labels: Record<string, string>;
  points: SeriesPoint[];
}

export const METRIC_LIMITS = {
  /** Data points one OTLP request may carry (a histogram point counts once per bucket). */
  pointsPerRequest: 10_000,
  labelsPerPoint: 32,
  labelNameLength: 128,
  labelValueLength: 256,
  nameLength: 200,
  /** The widest window a series query may cover, and the most points one series may return. */
  maxWindowMs: 7 * 24 * 3600_000,
  maxPointsPerSeries: 11_000,
  /** Most series one query returns (a broader query is 422: narrow the matchers). */
  maxSeriesPerQuery: 500,
} as const;
