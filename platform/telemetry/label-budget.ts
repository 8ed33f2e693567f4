// A cardinality budget for one label (the tenant, a GraphQL operation name): the first `size`
// distinct values keep their own series, every later value is counted as "other". A Prometheus
// series costs memory in this process and in every store downstream, and a label fed by callers
// (a tenant id, an operation name a client chose) would otherwise grow without bound: 100,000
// tenants, or one tenant inventing 100,000 names, would be 100,000 series.
//
// First come, not a running top N: re-ranking would retire series and start new ones, which
// Prometheus shows as counters resetting. In practice the first tenants seen after a start are
// the busy ones (they send the first requests); a restart re-ranks. The budget is per label.
export const OTHER = 'other';

export class LabelBudget {
  private readonly admitted = new Set<string>();

  constructor(readonly size: number) {}

  /** The label value to record `value` under: itself while within the budget, else "other". */
  label(value: string | undefined | null): string {
    if (value === undefined || value === null || value === '') return 'none';
    if (this.admitted.has(value)) return value;
    if (this.admitted.size < this.size && value !== OTHER) {
      this.admitted.add(value);
      return value;
    }
    return OTHER;
  }

  get used(): number {
    return this.admitted.size;
  }
}
