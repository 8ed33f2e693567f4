// Typed client for the validation service (8083), for the workflow service's validation steps:
// POST /validate with the caller's token and tenant (docs/validation.md is the wire contract).
import type { DelegatedIdentity } from '../auth/service-identity';
import { serviceRequest, type ServiceCallContext, type ServiceEndpoint } from './service-request';
import type { ValidateRequest, ValidateResponse } from '../contracts/clients/validation.api';
// Re-exported so callers keep importing the client's module; the types live in platform/contracts.
export type { ValidateRequest, ValidateResponse };

export class ValidationClient {
  private readonly endpoint: ServiceEndpoint;

  /** `identity`: the calling service's, used for callers without a token (service-request.ts). */
  constructor(baseUrl: string, identity?: DelegatedIdentity) {
    this.endpoint = { baseUrl, identity };
  }

  /** Runs a pack; 404 unknown pack, 409 not runnable (deprecated, draft, bad signature), 422 bad payload, 503 registry down. */
  validate(
    context: ServiceCallContext,
    request: ValidateRequest,
    options: { timeoutMs?: number } = {},
  ): Promise<ValidateResponse> {
    return serviceRequest(this.endpoint, 'validate', context, {
      method: 'POST',
      body: request,
      timeoutMs: options.timeoutMs ?? 30_000,
    });
  }
}
