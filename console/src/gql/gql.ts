/* eslint-disable */
import * as types from './graphql';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  query ApprovalsInbox($status: String) {\n    approvalTasks(status: $status, first: 50) {\n      nodes { id workflowId workflowType step payload status reviewer decision notes createdAt decidedAt deadlineAt escalationLevel requestedBy reviewerRole }\n      nextCursor\n    }\n  }\n": typeof types.ApprovalsInboxDocument,
    "\n  subscription ApprovalRequested { approvalRequested { cursor event task { id } } }\n": typeof types.ApprovalRequestedDocument,
    "\n  mutation DecideApproval($taskId: ID!, $decision: String!, $notes: String) {\n    decideApproval(taskId: $taskId, decision: $decision, notes: $notes) {\n      workflowStatus message task { id status reviewer decision notes decidedAt }\n    }\n  }\n": typeof types.DecideApprovalDocument,
    "\n  subscription SagaProgress($workflowId: ID!) {\n    workflowStatusChanged(workflowId: $workflowId, afterVersion: 0) { workflowId version event status step at }\n  }\n": typeof types.SagaProgressDocument,
    "\n  query ChartWorkflowRuns { workflowExecutions(first: 200) { nodes { id status createdAt } } }\n": typeof types.ChartWorkflowRunsDocument,
    "\n  query ChartOcrStats { ocrStats { totalJobs averageConfidence confidenceHistogram } }\n": typeof types.ChartOcrStatsDocument,
    "\n  query ChartLedgerEvents { ledgerEvents(first: 1000) { totalCount nodes { id createdAt } } }\n": typeof types.ChartLedgerEventsDocument,
    "\n  query LedgerEvents($filter: LedgerEventFilter, $first: Int) {\n    ledgerEvents(filter: $filter, first: $first) {\n      totalCount\n      nodes { id seq eventType eventData createdAt chainHash userId correlationId description writtenBy }\n    }\n  }\n": typeof types.LedgerEventsDocument,
    "\n  query VerifyLedger { verifyLedger { valid totalEvents error } }\n": typeof types.VerifyLedgerDocument,
    "\n  subscription LedgerAppended { ledgerEventAppended { id seq } }\n": typeof types.LedgerAppendedDocument,
    "\n  query OcrReviewQueue {\n    ocrReviewQueue(limit: 50) {\n      id filename mimeType status confidenceScore extractedText extractedFields notes createdAt\n      pages { page text confidence source }\n    }\n  }\n": typeof types.OcrReviewQueueDocument,
    "\n  mutation ReviewOcrJob($id: ID!, $input: OcrReviewInput!) {\n    reviewOcrJob(id: $id, input: $input) { id status extractedText confidenceScore }\n  }\n": typeof types.ReviewOcrJobDocument,
    "\n  query RulePacks {\n    rulePacks(first: 50) {\n      nodes {\n        id version status author ownerTenant submittedAt certifiedAt signature keyId reviewers definition\n        decisions { decision actor toState notes createdAt }\n      }\n    }\n  }\n": typeof types.RulePacksDocument,
    "\n  mutation SubmitRulePackForReview($id: ID!, $version: String!) { submitRulePackForReview(id: $id, version: $version) { id version status } }\n": typeof types.SubmitRulePackForReviewDocument,
    "\n  mutation CertifyRulePack($id: ID!, $version: String!, $notes: String) { certifyRulePack(id: $id, version: $version, notes: $notes) { id version status signature keyId } }\n": typeof types.CertifyRulePackDocument,
    "\n  mutation RejectRulePack($id: ID!, $version: String!, $notes: String!) { rejectRulePack(id: $id, version: $version, notes: $notes) { id version status } }\n": typeof types.RejectRulePackDocument,
    "\n  query WorkflowExecutions($status: WorkflowStatus) {\n    workflowExecutions(status: $status, first: 20) {\n      nodes {\n        id status workflowType packId packVersion requestedBy error payload createdAt completedAt\n        steps { step path type status attempts error compensationStatus compensationError compensatedAt }\n        compensation { reason status steps parked }\n      }\n    }\n  }\n": typeof types.WorkflowExecutionsDocument,
    "\n  query ConsoleTenants { tenants { id name } }\n": typeof types.ConsoleTenantsDocument,
};
const documents: Documents = {
    "\n  query ApprovalsInbox($status: String) {\n    approvalTasks(status: $status, first: 50) {\n      nodes { id workflowId workflowType step payload status reviewer decision notes createdAt decidedAt deadlineAt escalationLevel requestedBy reviewerRole }\n      nextCursor\n    }\n  }\n": types.ApprovalsInboxDocument,
    "\n  subscription ApprovalRequested { approvalRequested { cursor event task { id } } }\n": types.ApprovalRequestedDocument,
    "\n  mutation DecideApproval($taskId: ID!, $decision: String!, $notes: String) {\n    decideApproval(taskId: $taskId, decision: $decision, notes: $notes) {\n      workflowStatus message task { id status reviewer decision notes decidedAt }\n    }\n  }\n": types.DecideApprovalDocument,
    "\n  subscription SagaProgress($workflowId: ID!) {\n    workflowStatusChanged(workflowId: $workflowId, afterVersion: 0) { workflowId version event status step at }\n  }\n": types.SagaProgressDocument,
    "\n  query ChartWorkflowRuns { workflowExecutions(first: 200) { nodes { id status createdAt } } }\n": types.ChartWorkflowRunsDocument,
    "\n  query ChartOcrStats { ocrStats { totalJobs averageConfidence confidenceHistogram } }\n": types.ChartOcrStatsDocument,
    "\n  query ChartLedgerEvents { ledgerEvents(first: 1000) { totalCount nodes { id createdAt } } }\n": types.ChartLedgerEventsDocument,
    "\n  query LedgerEvents($filter: LedgerEventFilter, $first: Int) {\n    ledgerEvents(filter: $filter, first: $first) {\n      totalCount\n      nodes { id seq eventType eventData createdAt chainHash userId correlationId description writtenBy }\n    }\n  }\n": types.LedgerEventsDocument,
    "\n  query VerifyLedger { verifyLedger { valid totalEvents error } }\n": types.VerifyLedgerDocument,
    "\n  subscription LedgerAppended { ledgerEventAppended { id seq } }\n": types.LedgerAppendedDocument,
    "\n  query OcrReviewQueue {\n    ocrReviewQueue(limit: 50) {\n      id filename mimeType status confidenceScore extractedText extractedFields notes createdAt\n      pages { page text confidence source }\n    }\n  }\n": types.OcrReviewQueueDocument,
    "\n  mutation ReviewOcrJob($id: ID!, $input: OcrReviewInput!) {\n    reviewOcrJob(id: $id, input: $input) { id status extractedText confidenceScore }\n  }\n": types.ReviewOcrJobDocument,
    "\n  query RulePacks {\n    rulePacks(first: 50) {\n      nodes {\n        id version status author ownerTenant submittedAt certifiedAt signature keyId reviewers definition\n        decisions { decision actor toState notes createdAt }\n      }\n    }\n  }\n": types.RulePacksDocument,
    "\n  mutation SubmitRulePackForReview($id: ID!, $version: String!) { submitRulePackForReview(id: $id, version: $version) { id version status } }\n": types.SubmitRulePackForReviewDocument,
    "\n  mutation CertifyRulePack($id: ID!, $version: String!, $notes: String) { certifyRulePack(id: $id, version: $version, notes: $notes) { id version status signature keyId } }\n": types.CertifyRulePackDocument,
    "\n  mutation RejectRulePack($id: ID!, $version: String!, $notes: String!) { rejectRulePack(id: $id, version: $version, notes: $notes) { id version status } }\n": types.RejectRulePackDocument,
    "\n  query WorkflowExecutions($status: WorkflowStatus) {\n    workflowExecutions(status: $status, first: 20) {\n      nodes {\n        id status workflowType packId packVersion requestedBy error payload createdAt completedAt\n        steps { step path type status attempts error compensationStatus compensationError compensatedAt }\n        compensation { reason status steps parked }\n      }\n    }\n  }\n": types.WorkflowExecutionsDocument,
    "\n  query ConsoleTenants { tenants { id name } }\n": types.ConsoleTenantsDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ApprovalsInbox($status: String) {\n    approvalTasks(status: $status, first: 50) {\n      nodes { id workflowId workflowType step payload status reviewer decision notes createdAt decidedAt deadlineAt escalationLevel requestedBy reviewerRole }\n      nextCursor\n    }\n  }\n"): (typeof documents)["\n  query ApprovalsInbox($status: String) {\n    approvalTasks(status: $status, first: 50) {\n      nodes { id workflowId workflowType step payload status reviewer decision notes createdAt decidedAt deadlineAt escalationLevel requestedBy reviewerRole }\n      nextCursor\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ApprovalRequested { approvalRequested { cursor event task { id } } }\n"): (typeof documents)["\n  subscription ApprovalRequested { approvalRequested { cursor event task { id } } }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DecideApproval($taskId: ID!, $decision: String!, $notes: String) {\n    decideApproval(taskId: $taskId, decision: $decision, notes: $notes) {\n      workflowStatus message task { id status reviewer decision notes decidedAt }\n    }\n  }\n"): (typeof documents)["\n  mutation DecideApproval($taskId: ID!, $decision: String!, $notes: String) {\n    decideApproval(taskId: $taskId, decision: $decision, notes: $notes) {\n      workflowStatus message task { id status reviewer decision notes decidedAt }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription SagaProgress($workflowId: ID!) {\n    workflowStatusChanged(workflowId: $workflowId, afterVersion: 0) { workflowId version event status step at }\n  }\n"): (typeof documents)["\n  subscription SagaProgress($workflowId: ID!) {\n    workflowStatusChanged(workflowId: $workflowId, afterVersion: 0) { workflowId version event status step at }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ChartWorkflowRuns { workflowExecutions(first: 200) { nodes { id status createdAt } } }\n"): (typeof documents)["\n  query ChartWorkflowRuns { workflowExecutions(first: 200) { nodes { id status createdAt } } }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ChartOcrStats { ocrStats { totalJobs averageConfidence confidenceHistogram } }\n"): (typeof documents)["\n  query ChartOcrStats { ocrStats { totalJobs averageConfidence confidenceHistogram } }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ChartLedgerEvents { ledgerEvents(first: 1000) { totalCount nodes { id createdAt } } }\n"): (typeof documents)["\n  query ChartLedgerEvents { ledgerEvents(first: 1000) { totalCount nodes { id createdAt } } }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query LedgerEvents($filter: LedgerEventFilter, $first: Int) {\n    ledgerEvents(filter: $filter, first: $first) {\n      totalCount\n      nodes { id seq eventType eventData createdAt chainHash userId correlationId description writtenBy }\n    }\n  }\n"): (typeof documents)["\n  query LedgerEvents($filter: LedgerEventFilter, $first: Int) {\n    ledgerEvents(filter: $filter, first: $first) {\n      totalCount\n      nodes { id seq eventType eventData createdAt chainHash userId correlationId description writtenBy }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query VerifyLedger { verifyLedger { valid totalEvents error } }\n"): (typeof documents)["\n  query VerifyLedger { verifyLedger { valid totalEvents error } }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription LedgerAppended { ledgerEventAppended { id seq } }\n"): (typeof documents)["\n  subscription LedgerAppended { ledgerEventAppended { id seq } }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query OcrReviewQueue {\n    ocrReviewQueue(limit: 50) {\n      id filename mimeType status confidenceScore extractedText extractedFields notes createdAt\n      pages { page text confidence source }\n    }\n  }\n"): (typeof documents)["\n  query OcrReviewQueue {\n    ocrReviewQueue(limit: 50) {\n      id filename mimeType status confidenceScore extractedText extractedFields notes createdAt\n      pages { page text confidence source }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ReviewOcrJob($id: ID!, $input: OcrReviewInput!) {\n    reviewOcrJob(id: $id, input: $input) { id status extractedText confidenceScore }\n  }\n"): (typeof documents)["\n  mutation ReviewOcrJob($id: ID!, $input: OcrReviewInput!) {\n    reviewOcrJob(id: $id, input: $input) { id status extractedText confidenceScore }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RulePacks {\n    rulePacks(first: 50) {\n      nodes {\n        id version status author ownerTenant submittedAt certifiedAt signature keyId reviewers definition\n        decisions { decision actor toState notes createdAt }\n      }\n    }\n  }\n"): (typeof documents)["\n  query RulePacks {\n    rulePacks(first: 50) {\n      nodes {\n        id version status author ownerTenant submittedAt certifiedAt signature keyId reviewers definition\n        decisions { decision actor toState notes createdAt }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SubmitRulePackForReview($id: ID!, $version: String!) { submitRulePackForReview(id: $id, version: $version) { id version status } }\n"): (typeof documents)["\n  mutation SubmitRulePackForReview($id: ID!, $version: String!) { submitRulePackForReview(id: $id, version: $version) { id version status } }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CertifyRulePack($id: ID!, $version: String!, $notes: String) { certifyRulePack(id: $id, version: $version, notes: $notes) { id version status signature keyId } }\n"): (typeof documents)["\n  mutation CertifyRulePack($id: ID!, $version: String!, $notes: String) { certifyRulePack(id: $id, version: $version, notes: $notes) { id version status signature keyId } }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RejectRulePack($id: ID!, $version: String!, $notes: String!) { rejectRulePack(id: $id, version: $version, notes: $notes) { id version status } }\n"): (typeof documents)["\n  mutation RejectRulePack($id: ID!, $version: String!, $notes: String!) { rejectRulePack(id: $id, version: $version, notes: $notes) { id version status } }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query WorkflowExecutions($status: WorkflowStatus) {\n    workflowExecutions(status: $status, first: 20) {\n      nodes {\n        id status workflowType packId packVersion requestedBy error payload createdAt completedAt\n        steps { step path type status attempts error compensationStatus compensationError compensatedAt }\n        compensation { reason status steps parked }\n      }\n    }\n  }\n"): (typeof documents)["\n  query WorkflowExecutions($status: WorkflowStatus) {\n    workflowExecutions(status: $status, first: 20) {\n      nodes {\n        id status workflowType packId packVersion requestedBy error payload createdAt completedAt\n        steps { step path type status attempts error compensationStatus compensationError compensatedAt }\n        compensation { reason status steps parked }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleTenants { tenants { id name } }\n"): (typeof documents)["\n  query ConsoleTenants { tenants { id name } }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;