// Typed client for the compliance service (8135): how producers hand it compliance events when
// they call instead of publishing (validation and workflow, spec 03), how a reader (the
// reports to come) pages evidence, and how a checker (the compliance scanner) reads a tenant's
// retention policies. Its address is PLATFORM_COMPLIANCE_URL (spec 03's variable for
// validation and workflow), else COMPLIANCE_URL, else the registry's port. Submitting with the
// same event id again is safe: the service takes each id once (ServiceCallError.retryable says
// whether to try again).
import type { DelegatedIdentity } from '../auth/service-identity';
import { readUrl } from '../config/env';
import { serviceUrl } from '../config/platform.config';
import type { Env } from '../service';
import type {
  ComplianceEventRequest,
  ComplianceEvidenceJson,
  ComplianceEvidencePageJson,
  ComplianceEvidenceQuery,
  ComplianceIngestResponse,
  ComplianceRetentionPoliciesJson,
  ComplianceRetentionRuleJson,
} from '../contracts/clients/compliance.api';
import { serviceRequest, type ServiceCallContext, type ServiceEndpoint } from './service-request';

// Re-exported so callers keep importing the client's module; the types live in platform/contracts.
export type {
  ComplianceEventRequest,
  ComplianceEvidenceJson,
  ComplianceEvidencePageJson,
  ComplianceEvidenceQuery,
  ComplianceIngestResponse,
  ComplianceRetentionPoliciesJson,
  ComplianceRetentionRuleJson,
};

/** PLATFORM_COMPLIANCE_URL, else COMPLIANCE_URL, else http://127.0.0.1:<COMPLIANCE_PORT or 8135>. */
export function complianceUrl(env: Env): string {
  return (
    readUrl(env, 'PLATFORM_COMPLIANCE_URL', ['http:', 'https:']) ?? serviceUrl(env, { name: 'compliance', port: 8135 })
  );
}

const seg = encodeURIComponent;

export class ComplianceClient {
  private readonly endpoint: ServiceEndpoint;

  /** `identity`: the calling service's, used for callers without a token (service-request.ts). */
  constructor(baseUrl: string, identity?: DelegatedIdentity) {
    this.endpoint = { baseUrl, identity };
  }

  /** The intake: 201 created, 200 when the id was taken before (both resolve). */
  submitEvent(context: ServiceCallContext, event: ComplianceEventRequest): Promise<ComplianceIngestResponse> {
    return serviceRequest(this.endpoint, 'api/compliance/events', context, { method: 'POST', body: event });
  }

  evidence(context: ServiceCallContext, query: ComplianceEvidenceQuery = {}): Promise<ComplianceEvidencePageJson> {
    return serviceRequest(this.endpoint, 'api/compliance/evidence', context, { query: { ...query } });
  }

  evidenceItem(context: ServiceCallContext, itemId: string): Promise<ComplianceEvidenceJson> {
    return serviceRequest(this.endpoint, `api/compliance/evidence/${seg(itemId)}`, context);
  }

  /** Every record type with its legal minimum and the context's tenant's policy (`retain_days` null: none). */
  retentionPolicies(context: ServiceCallContext): Promise<ComplianceRetentionPoliciesJson> {
    return serviceRequest(this.endpoint, 'api/compliance/retention/policies', context);
  }
}
