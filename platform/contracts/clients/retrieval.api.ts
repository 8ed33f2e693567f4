// The retrieval service's API as other services call it, in wire names: the request and
// response types of platform/clients/retrieval.client.ts. What the serving routes send and accept must stay
// assignable to these (compile-time checks in test/unit/platform/contracts.test.ts).

export interface IngestDocument {
  title: string;
  content: string;
  source?: string;
  level?: string;
  suiteId?: string;
  moduleId?: string;
  metadata?: Record<string, unknown>;
}

export interface IngestReceipt {
  status: number;
  body: unknown;
}
