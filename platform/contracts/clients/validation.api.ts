// The validation service's API as other services call it, in wire names: the request and
// response types of platform/clients/validation.client.ts. What the serving routes send and accept must stay
// assignable to these (compile-time checks in test/unit/platform/contracts.test.ts).

export interface ValidateRequest {
  rule_pack_id: string;
  rule_pack_version?: string;
  payload: unknown;
  validation_type?: string;
  strict_mode?: boolean;
  metadata?: Record<string, unknown>;
}

export interface ValidateResponse {
  result: {
    valid: boolean;
    errors: Record<string, unknown>[];
    warnings: Record<string, unknown>[];
    rule_results: Record<string, unknown>;
    metadata: Record<string, unknown>;
  };
  correlation_id: string;
  execution_time_ms: number;
  rule_pack_version: string | null;
  rule_pack_id: string;
}
