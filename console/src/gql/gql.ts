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
    "\n  query ApprovalsInbox($status: String) {\n    approvalTasks(status: $status, first: 50) {\n      nodes {\n        id\n        workflowId\n        workflowType\n        step\n        payload\n        status\n        reviewer\n        decision\n        notes\n        createdAt\n        decidedAt\n        deadlineAt\n        escalationLevel\n        requestedBy\n        reviewerRole\n      }\n      nextCursor\n    }\n  }\n": typeof types.ApprovalsInboxDocument,
    "\n  subscription ApprovalRequested {\n    approvalRequested {\n      cursor\n      event\n      task {\n        id\n      }\n    }\n  }\n": typeof types.ApprovalRequestedDocument,
    "\n  mutation DecideApproval($taskId: ID!, $decision: String!, $notes: String) {\n    decideApproval(taskId: $taskId, decision: $decision, notes: $notes) {\n      workflowStatus\n      message\n      task {\n        id\n        status\n        reviewer\n        decision\n        notes\n        decidedAt\n      }\n    }\n  }\n": typeof types.DecideApprovalDocument,
    "\n  subscription SagaProgress($workflowId: ID!) {\n    workflowStatusChanged(workflowId: $workflowId, afterVersion: 0) {\n      workflowId\n      version\n      event\n      status\n      step\n      at\n    }\n  }\n": typeof types.SagaProgressDocument,
    "\n  query ChartWorkflowRuns {\n    workflowExecutions(first: 200) {\n      nodes {\n        id\n        status\n        createdAt\n      }\n    }\n  }\n": typeof types.ChartWorkflowRunsDocument,
    "\n  query ChartOcrStats {\n    ocrStats {\n      totalJobs\n      averageConfidence\n      confidenceHistogram\n    }\n  }\n": typeof types.ChartOcrStatsDocument,
    "\n  query ChartLedgerEvents {\n    ledgerEvents(first: 1000) {\n      totalCount\n      nodes {\n        id\n        createdAt\n      }\n    }\n  }\n": typeof types.ChartLedgerEventsDocument,
    "\n  query ConfigOverview {\n    configEffective {\n      tenantId\n      seq\n      config\n      provenance {\n        pointer\n        layer\n        bundleId\n        version\n        seq\n      }\n    }\n    configBundles(limit: 50) {\n      id\n      layer\n      scope\n      namespace\n      version\n      sha256\n      author\n      createdAt\n    }\n    configRollouts(limit: 50) {\n      id\n      bundleId\n      percentage\n      hashBy\n      status\n      requestedBy\n      approvedBy\n      approvalTaskId\n      scheduledAt\n      changeSeq\n    }\n  }\n": typeof types.ConfigOverviewDocument,
    "\n  subscription ConfigChangedLive {\n    configChanged {\n      seq\n      namespace\n      layer\n      kind\n    }\n  }\n": typeof types.ConfigChangedLiveDocument,
    "\n  mutation PublishConfigBundleFromConsole($input: PublishConfigBundleInput!) {\n    publishConfigBundle(input: $input) {\n      id\n      layer\n      scope\n      namespace\n      version\n      sha256\n    }\n  }\n": typeof types.PublishConfigBundleFromConsoleDocument,
    "\n  mutation PromoteConfigBundleFromConsole($bundleId: ID!, $percentage: Int, $hashBy: String, $scheduledAt: String) {\n    promoteConfigBundle(bundleId: $bundleId, percentage: $percentage, hashBy: $hashBy, scheduledAt: $scheduledAt) {\n      id\n      status\n      percentage\n      approvalTaskId\n    }\n  }\n": typeof types.PromoteConfigBundleFromConsoleDocument,
    "\n  mutation RollbackConfigBundleFromConsole($bundleId: ID!) {\n    rollbackConfigBundle(bundleId: $bundleId) {\n      seq\n      namespace\n      kind\n    }\n  }\n": typeof types.RollbackConfigBundleFromConsoleDocument,
    "\n  query DataflowRuns {\n    dataflowRuns(first: 20) {\n      id\n      packId\n      packVersion\n      triggerKind\n      triggerKey\n      status\n      error\n      result\n      startedAt\n      finishedAt\n    }\n  }\n": typeof types.DataflowRunsDocument,
    "\n  query DataflowRunDetail($id: ID!) {\n    dataflowRun(id: $id) {\n      id\n      status\n      breaks(first: 100) {\n        cursor\n        reconciliation\n        category\n        key\n        detail\n      }\n      evidence {\n        sha256\n        createdAt\n        content\n      }\n    }\n  }\n": typeof types.DataflowRunDetailDocument,
    "\n  query EventSubscriptions {\n    eventSubscriptions {\n      name\n      topic\n      position\n      maxDeliveries\n    }\n  }\n": typeof types.EventSubscriptionsDocument,
    "\n  query DeadLetters($name: String!, $limit: Int) {\n    eventSubscription(name: $name) {\n      name\n      topic\n      position\n      maxDeliveries\n      ackTimeoutMs\n      backoffMs\n      deadLetters(limit: $limit) {\n        subscription\n        position\n        attempts\n        lastError\n        deadAt\n        event {\n          id\n          type\n          subject\n          time\n        }\n      }\n    }\n  }\n": typeof types.DeadLettersDocument,
    "\n  query DeadLetter($subscription: String!, $position: Float!) {\n    deadLetter(subscription: $subscription, position: $position) {\n      subscription\n      position\n      attempts\n      lastError\n      deadAt\n      event {\n        id\n        topic\n        position\n        source\n        type\n        specversion\n        time\n        subject\n        tenantId\n        traceparent\n        data\n      }\n    }\n  }\n": typeof types.DeadLetterDocument,
    "\n  mutation RedriveDeadLetters($subscription: String!, $positions: [Float!]) {\n    redriveDeadLetters(subscription: $subscription, positions: $positions)\n  }\n": typeof types.RedriveDeadLettersDocument,
    "\n  mutation ReplayEventSubscription($name: String!, $from: ReplayFromInput!) {\n    replayEventSubscription(name: $name, from: $from)\n  }\n": typeof types.ReplayEventSubscriptionDocument,
    "\n  query IngestionPipelines {\n    ingestionPipelines(limit: 200) {\n      id\n      name\n      sourceKind\n      version\n      definition\n      updatedAt\n    }\n  }\n": typeof types.IngestionPipelinesDocument,
    "\n  query IngestionPipelineDetail($id: ID!) {\n    ingestionPipeline(id: $id) {\n      id\n      name\n      version\n      versions {\n        version\n        definitionSha256\n        createdBy\n        createdAt\n      }\n      batches(limit: 20) {\n        id\n        pipelineVersion\n        sourceName\n        status\n        rowsRead\n        rowsStaged\n        rowsQuarantined\n        error\n        createdAt\n        completedAt\n        manifest {\n          contentSha256\n        }\n        schemaChange {\n          status\n          added\n          removed\n          reviewer\n        }\n      }\n    }\n  }\n": typeof types.IngestionPipelineDetailDocument,
    "\n  subscription IngestionBatchProgressLive($pipelineId: ID!) {\n    ingestionBatchProgress(pipelineId: $pipelineId) {\n      batchId\n      status\n      rowsRead\n      rowsStaged\n      rowsQuarantined\n    }\n  }\n": typeof types.IngestionBatchProgressLiveDocument,
    "\n  query IngestionQuarantine($id: ID!) {\n    ingestionBatch(id: $id) {\n      id\n      sourceName\n      quarantine(limit: 200) {\n        offset\n        reason\n        record\n        rawSha256\n      }\n    }\n  }\n": typeof types.IngestionQuarantineDocument,
    "\n  query LedgerEvents($filter: LedgerEventFilter, $first: Int) {\n    ledgerEvents(filter: $filter, first: $first) {\n      totalCount\n      nodes {\n        id\n        seq\n        eventType\n        eventData\n        createdAt\n        chainHash\n        userId\n        correlationId\n        description\n        writtenBy\n      }\n    }\n  }\n": typeof types.LedgerEventsDocument,
    "\n  query VerifyLedger {\n    verifyLedger {\n      valid\n      totalEvents\n      error\n    }\n  }\n": typeof types.VerifyLedgerDocument,
    "\n  subscription LedgerAppended {\n    ledgerEventAppended {\n      id\n      seq\n    }\n  }\n": typeof types.LedgerAppendedDocument,
    "\n  query TenantDashboards($from: String) {\n    requests: metricSeries(metric: \"tenant_requests_total\", rate: true, from: $from, stepSeconds: 60) {\n      points {\n        t\n        v\n      }\n    }\n  }\n": typeof types.TenantDashboardsDocument,
    "\n  query PlatformDashboards($from: String) {\n    requests: metricSeries(metric: \"http_requests_total\", rate: true, scope: \"platform\", from: $from, stepSeconds: 60) {\n      points {\n        t\n        v\n      }\n    }\n    errors: metricSeries(\n      metric: \"http_request_errors_total\"\n      rate: true\n      scope: \"platform\"\n      from: $from\n      stepSeconds: 60\n    ) {\n      points {\n        t\n        v\n      }\n    }\n    seconds: metricSeries(\n      metric: \"http_request_duration_seconds_sum\"\n      rate: true\n      scope: \"platform\"\n      from: $from\n      stepSeconds: 60\n    ) {\n      points {\n        t\n        v\n      }\n    }\n    count: metricSeries(\n      metric: \"http_request_duration_seconds_count\"\n      rate: true\n      scope: \"platform\"\n      from: $from\n      stepSeconds: 60\n    ) {\n      points {\n        t\n        v\n      }\n    }\n  }\n": typeof types.PlatformDashboardsDocument,
    "\n  query ObservedSpans($service: String, $operation: String, $minDurationMs: Float, $error: Boolean) {\n    observedSpans(service: $service, operation: $operation, minDurationMs: $minDurationMs, error: $error, limit: 50) {\n      traceId\n      spanId\n      service\n      name\n      startTime\n      durationMs\n      error\n    }\n  }\n": typeof types.ObservedSpansDocument,
    "\n  query ObservedTrace($traceId: String!) {\n    observedTrace(traceId: $traceId) {\n      traceId\n      spans {\n        spanId\n        parentSpanId\n        service\n        name\n        startTime\n        durationMs\n        error\n        attributes\n      }\n    }\n  }\n": typeof types.ObservedTraceDocument,
    "\n  query ObservabilityAlerts {\n    observabilityAlerts {\n      state\n      value\n      firedAt\n      silencedBy\n      labels\n      rule {\n        id\n        name\n        kind\n        metric\n        op\n        threshold\n        windowSeconds\n        forSeconds\n        severity\n        summary\n      }\n    }\n    observabilitySilences {\n      id\n      matchers\n      startsAt\n      endsAt\n      createdBy\n      comment\n    }\n  }\n": typeof types.ObservabilityAlertsDocument,
    "\n  mutation CreateSilence($input: SilenceInput!) {\n    createSilence(input: $input) {\n      id\n    }\n  }\n": typeof types.CreateSilenceDocument,
    "\n  mutation ExpireSilence($id: ID!) {\n    expireSilence(id: $id) {\n      id\n    }\n  }\n": typeof types.ExpireSilenceDocument,
    "\n  query OcrReviewQueue {\n    ocrReviewQueue(limit: 50) {\n      id\n      filename\n      mimeType\n      status\n      confidenceScore\n      extractedText\n      extractedFields\n      notes\n      createdAt\n      pages {\n        page\n        text\n        confidence\n        source\n      }\n    }\n  }\n": typeof types.OcrReviewQueueDocument,
    "\n  mutation ReviewOcrJob($id: ID!, $input: OcrReviewInput!) {\n    reviewOcrJob(id: $id, input: $input) {\n      id\n      status\n      extractedText\n      confidenceScore\n    }\n  }\n": typeof types.ReviewOcrJobDocument,
    "\n  query ComplianceReportList {\n    complianceFrameworks {\n      key\n      title\n    }\n    complianceReports(first: 100) {\n      reports {\n        id\n        framework\n        reportType\n        period {\n          label\n        }\n        status\n        result\n        generatedBy\n        generatedAt\n      }\n      nextCursor\n    }\n  }\n": typeof types.ComplianceReportListDocument,
    "\n  query ReportDetail($id: ID!) {\n    complianceReport(id: $id) {\n      id\n      framework\n      reportType\n      period {\n        start\n        end\n        label\n      }\n      status\n      result\n      summary {\n        controls\n        satisfied\n        notSatisfied\n        fresh\n        expiring\n        stale\n        evidenceItems\n        unrecorded\n      }\n      checkpoint\n      contentSha256\n      generatedBy\n      generatedAt\n      reviewedBy\n      reviewedAt\n      reviewNotes\n      ledgerEntryId\n      documentPath\n      workflowId\n      approvalTaskId\n      controls {\n        controlId\n        title\n        satisfied\n        freshness\n        evidenceCount\n        lastCollectedAt\n      }\n    }\n  }\n": typeof types.ReportDetailDocument,
    "\n  query ReportApprovalTask($id: ID!) {\n    approvalTask(id: $id) {\n      id\n      status\n      reviewer\n      reviewerRole\n      decidedAt\n    }\n  }\n": typeof types.ReportApprovalTaskDocument,
    "\n  query ReportOscal($id: ID!) {\n    complianceReport(id: $id) {\n      id\n      oscal\n    }\n  }\n": typeof types.ReportOscalDocument,
    "\n  mutation GenerateComplianceReport($input: ComplianceGenerateReportInput!) {\n    generateComplianceReport(input: $input) {\n      id\n      status\n      result\n    }\n  }\n": typeof types.GenerateComplianceReportDocument,
    "\n  mutation SubmitComplianceReport($id: ID!) {\n    submitComplianceReport(id: $id) {\n      id\n      status\n      workflowId\n      approvalTaskId\n    }\n  }\n": typeof types.SubmitComplianceReportDocument,
    "\n  mutation SignOffComplianceReport($id: ID!, $decision: ComplianceReportDecision!, $notes: String) {\n    signOffComplianceReport(id: $id, decision: $decision, notes: $notes) {\n      id\n      status\n      reviewedBy\n      reviewedAt\n      reviewNotes\n      ledgerEntryId\n    }\n  }\n": typeof types.SignOffComplianceReportDocument,
    "\n  query RulePacks {\n    rulePacks(first: 50) {\n      nodes {\n        id\n        version\n        status\n        author\n        ownerTenant\n        submittedAt\n        certifiedAt\n        signature\n        keyId\n        reviewers\n        definition\n        decisions {\n          decision\n          actor\n          toState\n          notes\n          createdAt\n        }\n      }\n    }\n  }\n": typeof types.RulePacksDocument,
    "\n  mutation SubmitRulePackForReview($id: ID!, $version: String!) {\n    submitRulePackForReview(id: $id, version: $version) {\n      id\n      version\n      status\n    }\n  }\n": typeof types.SubmitRulePackForReviewDocument,
    "\n  mutation CertifyRulePack($id: ID!, $version: String!, $notes: String) {\n    certifyRulePack(id: $id, version: $version, notes: $notes) {\n      id\n      version\n      status\n      signature\n      keyId\n    }\n  }\n": typeof types.CertifyRulePackDocument,
    "\n  mutation RejectRulePack($id: ID!, $version: String!, $notes: String!) {\n    rejectRulePack(id: $id, version: $version, notes: $notes) {\n      id\n      version\n      status\n    }\n  }\n": typeof types.RejectRulePackDocument,
    "\n  query ScannerFindings($status: ScannerFindingStatus) {\n    scannerFindings(status: $status, limit: 200) {\n      id\n      ruleId\n      severity\n      status\n      path\n      line\n      detail\n      controls\n      firstSeen\n      lastSeen\n    }\n    scannerTargets {\n      id\n      name\n      kind\n    }\n  }\n": typeof types.ScannerFindingsDocument,
    "\n  query ScannerPendingSuppressions {\n    scannerSuppressions(status: PENDING, limit: 100) {\n      id\n      scope\n      fingerprint\n      ruleId\n      pathGlob\n      purl\n      owner\n      justification\n      expiresAt\n      requestedBy\n      workflowId\n      createdAt\n    }\n  }\n": typeof types.ScannerPendingSuppressionsDocument,
    "\n  query SecurityOverview {\n    mfaFactors {\n      factors {\n        id\n        kind\n        label\n        confirmed\n        createdAt\n        lastUsedAt\n      }\n      recoveryCodesLeft\n    }\n    sessions {\n      id\n      createdAt\n      lastUsedAt\n      amr\n      current\n    }\n  }\n": typeof types.SecurityOverviewDocument,
    "\n  mutation SecurityEnrolTotp($label: String) {\n    enrolTotp(label: $label) {\n      factorId\n      secret\n      otpauthUri\n    }\n  }\n": typeof types.SecurityEnrolTotpDocument,
    "\n  mutation SecurityConfirmTotp($factorId: ID!, $code: String!) {\n    confirmTotp(factorId: $factorId, code: $code) {\n      factorId\n      recoveryCodes\n    }\n  }\n": typeof types.SecurityConfirmTotpDocument,
    "\n  mutation SecurityPasskeyOptions {\n    webauthnRegistrationOptions\n  }\n": typeof types.SecurityPasskeyOptionsDocument,
    "\n  mutation SecurityRegisterPasskey($credential: JSON!, $label: String) {\n    registerWebauthn(credential: $credential, label: $label) {\n      factorId\n      recoveryCodes\n    }\n  }\n": typeof types.SecurityRegisterPasskeyDocument,
    "\n  mutation SecurityRenameFactor($id: ID!, $label: String) {\n    renameMfaFactor(id: $id, label: $label)\n  }\n": typeof types.SecurityRenameFactorDocument,
    "\n  mutation SecurityRemoveFactor($id: ID!) {\n    removeMfaFactor(id: $id)\n  }\n": typeof types.SecurityRemoveFactorDocument,
    "\n  mutation SecurityRevokeSession($id: ID!) {\n    revokeSession(id: $id)\n  }\n": typeof types.SecurityRevokeSessionDocument,
    "\n  query WorkflowExecutions($status: WorkflowStatus) {\n    workflowExecutions(status: $status, first: 20) {\n      nodes {\n        id\n        status\n        workflowType\n        packId\n        packVersion\n        requestedBy\n        error\n        payload\n        createdAt\n        completedAt\n        steps {\n          step\n          path\n          type\n          status\n          attempts\n          error\n          compensationStatus\n          compensationError\n          compensatedAt\n        }\n        compensation {\n          reason\n          status\n          steps\n          parked\n        }\n      }\n    }\n  }\n": typeof types.WorkflowExecutionsDocument,
    "\n  mutation PasskeySignInOptions($mfaToken: String!) {\n    webauthnAuthenticationOptions(mfaToken: $mfaToken)\n  }\n": typeof types.PasskeySignInOptionsDocument,
    "\n  query ConsoleTenants {\n    tenants {\n      id\n      name\n    }\n  }\n": typeof types.ConsoleTenantsDocument,
};
const documents: Documents = {
    "\n  query ApprovalsInbox($status: String) {\n    approvalTasks(status: $status, first: 50) {\n      nodes {\n        id\n        workflowId\n        workflowType\n        step\n        payload\n        status\n        reviewer\n        decision\n        notes\n        createdAt\n        decidedAt\n        deadlineAt\n        escalationLevel\n        requestedBy\n        reviewerRole\n      }\n      nextCursor\n    }\n  }\n": types.ApprovalsInboxDocument,
    "\n  subscription ApprovalRequested {\n    approvalRequested {\n      cursor\n      event\n      task {\n        id\n      }\n    }\n  }\n": types.ApprovalRequestedDocument,
    "\n  mutation DecideApproval($taskId: ID!, $decision: String!, $notes: String) {\n    decideApproval(taskId: $taskId, decision: $decision, notes: $notes) {\n      workflowStatus\n      message\n      task {\n        id\n        status\n        reviewer\n        decision\n        notes\n        decidedAt\n      }\n    }\n  }\n": types.DecideApprovalDocument,
    "\n  subscription SagaProgress($workflowId: ID!) {\n    workflowStatusChanged(workflowId: $workflowId, afterVersion: 0) {\n      workflowId\n      version\n      event\n      status\n      step\n      at\n    }\n  }\n": types.SagaProgressDocument,
    "\n  query ChartWorkflowRuns {\n    workflowExecutions(first: 200) {\n      nodes {\n        id\n        status\n        createdAt\n      }\n    }\n  }\n": types.ChartWorkflowRunsDocument,
    "\n  query ChartOcrStats {\n    ocrStats {\n      totalJobs\n      averageConfidence\n      confidenceHistogram\n    }\n  }\n": types.ChartOcrStatsDocument,
    "\n  query ChartLedgerEvents {\n    ledgerEvents(first: 1000) {\n      totalCount\n      nodes {\n        id\n        createdAt\n      }\n    }\n  }\n": types.ChartLedgerEventsDocument,
    "\n  query ConfigOverview {\n    configEffective {\n      tenantId\n      seq\n      config\n      provenance {\n        pointer\n        layer\n        bundleId\n        version\n        seq\n      }\n    }\n    configBundles(limit: 50) {\n      id\n      layer\n      scope\n      namespace\n      version\n      sha256\n      author\n      createdAt\n    }\n    configRollouts(limit: 50) {\n      id\n      bundleId\n      percentage\n      hashBy\n      status\n      requestedBy\n      approvedBy\n      approvalTaskId\n      scheduledAt\n      changeSeq\n    }\n  }\n": types.ConfigOverviewDocument,
    "\n  subscription ConfigChangedLive {\n    configChanged {\n      seq\n      namespace\n      layer\n      kind\n    }\n  }\n": types.ConfigChangedLiveDocument,
    "\n  mutation PublishConfigBundleFromConsole($input: PublishConfigBundleInput!) {\n    publishConfigBundle(input: $input) {\n      id\n      layer\n      scope\n      namespace\n      version\n      sha256\n    }\n  }\n": types.PublishConfigBundleFromConsoleDocument,
    "\n  mutation PromoteConfigBundleFromConsole($bundleId: ID!, $percentage: Int, $hashBy: String, $scheduledAt: String) {\n    promoteConfigBundle(bundleId: $bundleId, percentage: $percentage, hashBy: $hashBy, scheduledAt: $scheduledAt) {\n      id\n      status\n      percentage\n      approvalTaskId\n    }\n  }\n": types.PromoteConfigBundleFromConsoleDocument,
    "\n  mutation RollbackConfigBundleFromConsole($bundleId: ID!) {\n    rollbackConfigBundle(bundleId: $bundleId) {\n      seq\n      namespace\n      kind\n    }\n  }\n": types.RollbackConfigBundleFromConsoleDocument,
    "\n  query DataflowRuns {\n    dataflowRuns(first: 20) {\n      id\n      packId\n      packVersion\n      triggerKind\n      triggerKey\n      status\n      error\n      result\n      startedAt\n      finishedAt\n    }\n  }\n": types.DataflowRunsDocument,
    "\n  query DataflowRunDetail($id: ID!) {\n    dataflowRun(id: $id) {\n      id\n      status\n      breaks(first: 100) {\n        cursor\n        reconciliation\n        category\n        key\n        detail\n      }\n      evidence {\n        sha256\n        createdAt\n        content\n      }\n    }\n  }\n": types.DataflowRunDetailDocument,
    "\n  query EventSubscriptions {\n    eventSubscriptions {\n      name\n      topic\n      position\n      maxDeliveries\n    }\n  }\n": types.EventSubscriptionsDocument,
    "\n  query DeadLetters($name: String!, $limit: Int) {\n    eventSubscription(name: $name) {\n      name\n      topic\n      position\n      maxDeliveries\n      ackTimeoutMs\n      backoffMs\n      deadLetters(limit: $limit) {\n        subscription\n        position\n        attempts\n        lastError\n        deadAt\n        event {\n          id\n          type\n          subject\n          time\n        }\n      }\n    }\n  }\n": types.DeadLettersDocument,
    "\n  query DeadLetter($subscription: String!, $position: Float!) {\n    deadLetter(subscription: $subscription, position: $position) {\n      subscription\n      position\n      attempts\n      lastError\n      deadAt\n      event {\n        id\n        topic\n        position\n        source\n        type\n        specversion\n        time\n        subject\n        tenantId\n        traceparent\n        data\n      }\n    }\n  }\n": types.DeadLetterDocument,
    "\n  mutation RedriveDeadLetters($subscription: String!, $positions: [Float!]) {\n    redriveDeadLetters(subscription: $subscription, positions: $positions)\n  }\n": types.RedriveDeadLettersDocument,
    "\n  mutation ReplayEventSubscription($name: String!, $from: ReplayFromInput!) {\n    replayEventSubscription(name: $name, from: $from)\n  }\n": types.ReplayEventSubscriptionDocument,
    "\n  query IngestionPipelines {\n    ingestionPipelines(limit: 200) {\n      id\n      name\n      sourceKind\n      version\n      definition\n      updatedAt\n    }\n  }\n": types.IngestionPipelinesDocument,
    "\n  query IngestionPipelineDetail($id: ID!) {\n    ingestionPipeline(id: $id) {\n      id\n      name\n      version\n      versions {\n        version\n        definitionSha256\n        createdBy\n        createdAt\n      }\n      batches(limit: 20) {\n        id\n        pipelineVersion\n        sourceName\n        status\n        rowsRead\n        rowsStaged\n        rowsQuarantined\n        error\n        createdAt\n        completedAt\n        manifest {\n          contentSha256\n        }\n        schemaChange {\n          status\n          added\n          removed\n          reviewer\n        }\n      }\n    }\n  }\n": types.IngestionPipelineDetailDocument,
    "\n  subscription IngestionBatchProgressLive($pipelineId: ID!) {\n    ingestionBatchProgress(pipelineId: $pipelineId) {\n      batchId\n      status\n      rowsRead\n      rowsStaged\n      rowsQuarantined\n    }\n  }\n": types.IngestionBatchProgressLiveDocument,
    "\n  query IngestionQuarantine($id: ID!) {\n    ingestionBatch(id: $id) {\n      id\n      sourceName\n      quarantine(limit: 200) {\n        offset\n        reason\n        record\n        rawSha256\n      }\n    }\n  }\n": types.IngestionQuarantineDocument,
    "\n  query LedgerEvents($filter: LedgerEventFilter, $first: Int) {\n    ledgerEvents(filter: $filter, first: $first) {\n      totalCount\n      nodes {\n        id\n        seq\n        eventType\n        eventData\n        createdAt\n        chainHash\n        userId\n        correlationId\n        description\n        writtenBy\n      }\n    }\n  }\n": types.LedgerEventsDocument,
    "\n  query VerifyLedger {\n    verifyLedger {\n      valid\n      totalEvents\n      error\n    }\n  }\n": types.VerifyLedgerDocument,
    "\n  subscription LedgerAppended {\n    ledgerEventAppended {\n      id\n      seq\n    }\n  }\n": types.LedgerAppendedDocument,
    "\n  query TenantDashboards($from: String) {\n    requests: metricSeries(metric: \"tenant_requests_total\", rate: true, from: $from, stepSeconds: 60) {\n      points {\n        t\n        v\n      }\n    }\n  }\n": types.TenantDashboardsDocument,
    "\n  query PlatformDashboards($from: String) {\n    requests: metricSeries(metric: \"http_requests_total\", rate: true, scope: \"platform\", from: $from, stepSeconds: 60) {\n      points {\n        t\n        v\n      }\n    }\n    errors: metricSeries(\n      metric: \"http_request_errors_total\"\n      rate: true\n      scope: \"platform\"\n      from: $from\n      stepSeconds: 60\n    ) {\n      points {\n        t\n        v\n      }\n    }\n    seconds: metricSeries(\n      metric: \"http_request_duration_seconds_sum\"\n      rate: true\n      scope: \"platform\"\n      from: $from\n      stepSeconds: 60\n    ) {\n      points {\n        t\n        v\n      }\n    }\n    count: metricSeries(\n      metric: \"http_request_duration_seconds_count\"\n      rate: true\n      scope: \"platform\"\n      from: $from\n      stepSeconds: 60\n    ) {\n      points {\n        t\n        v\n      }\n    }\n  }\n": types.PlatformDashboardsDocument,
    "\n  query ObservedSpans($service: String, $operation: String, $minDurationMs: Float, $error: Boolean) {\n    observedSpans(service: $service, operation: $operation, minDurationMs: $minDurationMs, error: $error, limit: 50) {\n      traceId\n      spanId\n      service\n      name\n      startTime\n      durationMs\n      error\n    }\n  }\n": types.ObservedSpansDocument,
    "\n  query ObservedTrace($traceId: String!) {\n    observedTrace(traceId: $traceId) {\n      traceId\n      spans {\n        spanId\n        parentSpanId\n        service\n        name\n        startTime\n        durationMs\n        error\n        attributes\n      }\n    }\n  }\n": types.ObservedTraceDocument,
    "\n  query ObservabilityAlerts {\n    observabilityAlerts {\n      state\n      value\n      firedAt\n      silencedBy\n      labels\n      rule {\n        id\n        name\n        kind\n        metric\n        op\n        threshold\n        windowSeconds\n        forSeconds\n        severity\n        summary\n      }\n    }\n    observabilitySilences {\n      id\n      matchers\n      startsAt\n      endsAt\n      createdBy\n      comment\n    }\n  }\n": types.ObservabilityAlertsDocument,
    "\n  mutation CreateSilence($input: SilenceInput!) {\n    createSilence(input: $input) {\n      id\n    }\n  }\n": types.CreateSilenceDocument,
    "\n  mutation ExpireSilence($id: ID!) {\n    expireSilence(id: $id) {\n      id\n    }\n  }\n": types.ExpireSilenceDocument,
    "\n  query OcrReviewQueue {\n    ocrReviewQueue(limit: 50) {\n      id\n      filename\n      mimeType\n      status\n      confidenceScore\n      extractedText\n      extractedFields\n      notes\n      createdAt\n      pages {\n        page\n        text\n        confidence\n        source\n      }\n    }\n  }\n": types.OcrReviewQueueDocument,
    "\n  mutation ReviewOcrJob($id: ID!, $input: OcrReviewInput!) {\n    reviewOcrJob(id: $id, input: $input) {\n      id\n      status\n      extractedText\n      confidenceScore\n    }\n  }\n": types.ReviewOcrJobDocument,
    "\n  query ComplianceReportList {\n    complianceFrameworks {\n      key\n      title\n    }\n    complianceReports(first: 100) {\n      reports {\n        id\n        framework\n        reportType\n        period {\n          label\n        }\n        status\n        result\n        generatedBy\n        generatedAt\n      }\n      nextCursor\n    }\n  }\n": types.ComplianceReportListDocument,
    "\n  query ReportDetail($id: ID!) {\n    complianceReport(id: $id) {\n      id\n      framework\n      reportType\n      period {\n        start\n        end\n        label\n      }\n      status\n      result\n      summary {\n        controls\n        satisfied\n        notSatisfied\n        fresh\n        expiring\n        stale\n        evidenceItems\n        unrecorded\n      }\n      checkpoint\n      contentSha256\n      generatedBy\n      generatedAt\n      reviewedBy\n      reviewedAt\n      reviewNotes\n      ledgerEntryId\n      documentPath\n      workflowId\n      approvalTaskId\n      controls {\n        controlId\n        title\n        satisfied\n        freshness\n        evidenceCount\n        lastCollectedAt\n      }\n    }\n  }\n": types.ReportDetailDocument,
    "\n  query ReportApprovalTask($id: ID!) {\n    approvalTask(id: $id) {\n      id\n      status\n      reviewer\n      reviewerRole\n      decidedAt\n    }\n  }\n": types.ReportApprovalTaskDocument,
    "\n  query ReportOscal($id: ID!) {\n    complianceReport(id: $id) {\n      id\n      oscal\n    }\n  }\n": types.ReportOscalDocument,
    "\n  mutation GenerateComplianceReport($input: ComplianceGenerateReportInput!) {\n    generateComplianceReport(input: $input) {\n      id\n      status\n      result\n    }\n  }\n": types.GenerateComplianceReportDocument,
    "\n  mutation SubmitComplianceReport($id: ID!) {\n    submitComplianceReport(id: $id) {\n      id\n      status\n      workflowId\n      approvalTaskId\n    }\n  }\n": types.SubmitComplianceReportDocument,
    "\n  mutation SignOffComplianceReport($id: ID!, $decision: ComplianceReportDecision!, $notes: String) {\n    signOffComplianceReport(id: $id, decision: $decision, notes: $notes) {\n      id\n      status\n      reviewedBy\n      reviewedAt\n      reviewNotes\n      ledgerEntryId\n    }\n  }\n": types.SignOffComplianceReportDocument,
    "\n  query RulePacks {\n    rulePacks(first: 50) {\n      nodes {\n        id\n        version\n        status\n        author\n        ownerTenant\n        submittedAt\n        certifiedAt\n        signature\n        keyId\n        reviewers\n        definition\n        decisions {\n          decision\n          actor\n          toState\n          notes\n          createdAt\n        }\n      }\n    }\n  }\n": types.RulePacksDocument,
    "\n  mutation SubmitRulePackForReview($id: ID!, $version: String!) {\n    submitRulePackForReview(id: $id, version: $version) {\n      id\n      version\n      status\n    }\n  }\n": types.SubmitRulePackForReviewDocument,
    "\n  mutation CertifyRulePack($id: ID!, $version: String!, $notes: String) {\n    certifyRulePack(id: $id, version: $version, notes: $notes) {\n      id\n      version\n      status\n      signature\n      keyId\n    }\n  }\n": types.CertifyRulePackDocument,
    "\n  mutation RejectRulePack($id: ID!, $version: String!, $notes: String!) {\n    rejectRulePack(id: $id, version: $version, notes: $notes) {\n      id\n      version\n      status\n    }\n  }\n": types.RejectRulePackDocument,
    "\n  query ScannerFindings($status: ScannerFindingStatus) {\n    scannerFindings(status: $status, limit: 200) {\n      id\n      ruleId\n      severity\n      status\n      path\n      line\n      detail\n      controls\n      firstSeen\n      lastSeen\n    }\n    scannerTargets {\n      id\n      name\n      kind\n    }\n  }\n": types.ScannerFindingsDocument,
    "\n  query ScannerPendingSuppressions {\n    scannerSuppressions(status: PENDING, limit: 100) {\n      id\n      scope\n      fingerprint\n      ruleId\n      pathGlob\n      purl\n      owner\n      justification\n      expiresAt\n      requestedBy\n      workflowId\n      createdAt\n    }\n  }\n": types.ScannerPendingSuppressionsDocument,
    "\n  query SecurityOverview {\n    mfaFactors {\n      factors {\n        id\n        kind\n        label\n        confirmed\n        createdAt\n        lastUsedAt\n      }\n      recoveryCodesLeft\n    }\n    sessions {\n      id\n      createdAt\n      lastUsedAt\n      amr\n      current\n    }\n  }\n": types.SecurityOverviewDocument,
    "\n  mutation SecurityEnrolTotp($label: String) {\n    enrolTotp(label: $label) {\n      factorId\n      secret\n      otpauthUri\n    }\n  }\n": types.SecurityEnrolTotpDocument,
    "\n  mutation SecurityConfirmTotp($factorId: ID!, $code: String!) {\n    confirmTotp(factorId: $factorId, code: $code) {\n      factorId\n      recoveryCodes\n    }\n  }\n": types.SecurityConfirmTotpDocument,
    "\n  mutation SecurityPasskeyOptions {\n    webauthnRegistrationOptions\n  }\n": types.SecurityPasskeyOptionsDocument,
    "\n  mutation SecurityRegisterPasskey($credential: JSON!, $label: String) {\n    registerWebauthn(credential: $credential, label: $label) {\n      factorId\n      recoveryCodes\n    }\n  }\n": types.SecurityRegisterPasskeyDocument,
    "\n  mutation SecurityRenameFactor($id: ID!, $label: String) {\n    renameMfaFactor(id: $id, label: $label)\n  }\n": types.SecurityRenameFactorDocument,
    "\n  mutation SecurityRemoveFactor($id: ID!) {\n    removeMfaFactor(id: $id)\n  }\n": types.SecurityRemoveFactorDocument,
    "\n  mutation SecurityRevokeSession($id: ID!) {\n    revokeSession(id: $id)\n  }\n": types.SecurityRevokeSessionDocument,
    "\n  query WorkflowExecutions($status: WorkflowStatus) {\n    workflowExecutions(status: $status, first: 20) {\n      nodes {\n        id\n        status\n        workflowType\n        packId\n        packVersion\n        requestedBy\n        error\n        payload\n        createdAt\n        completedAt\n        steps {\n          step\n          path\n          type\n          status\n          attempts\n          error\n          compensationStatus\n          compensationError\n          compensatedAt\n        }\n        compensation {\n          reason\n          status\n          steps\n          parked\n        }\n      }\n    }\n  }\n": types.WorkflowExecutionsDocument,
    "\n  mutation PasskeySignInOptions($mfaToken: String!) {\n    webauthnAuthenticationOptions(mfaToken: $mfaToken)\n  }\n": types.PasskeySignInOptionsDocument,
    "\n  query ConsoleTenants {\n    tenants {\n      id\n      name\n    }\n  }\n": types.ConsoleTenantsDocument,
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
export function graphql(source: "\n  query ApprovalsInbox($status: String) {\n    approvalTasks(status: $status, first: 50) {\n      nodes {\n        id\n        workflowId\n        workflowType\n        step\n        payload\n        status\n        reviewer\n        decision\n        notes\n        createdAt\n        decidedAt\n        deadlineAt\n        escalationLevel\n        requestedBy\n        reviewerRole\n      }\n      nextCursor\n    }\n  }\n"): (typeof documents)["\n  query ApprovalsInbox($status: String) {\n    approvalTasks(status: $status, first: 50) {\n      nodes {\n        id\n        workflowId\n        workflowType\n        step\n        payload\n        status\n        reviewer\n        decision\n        notes\n        createdAt\n        decidedAt\n        deadlineAt\n        escalationLevel\n        requestedBy\n        reviewerRole\n      }\n      nextCursor\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ApprovalRequested {\n    approvalRequested {\n      cursor\n      event\n      task {\n        id\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription ApprovalRequested {\n    approvalRequested {\n      cursor\n      event\n      task {\n        id\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DecideApproval($taskId: ID!, $decision: String!, $notes: String) {\n    decideApproval(taskId: $taskId, decision: $decision, notes: $notes) {\n      workflowStatus\n      message\n      task {\n        id\n        status\n        reviewer\n        decision\n        notes\n        decidedAt\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation DecideApproval($taskId: ID!, $decision: String!, $notes: String) {\n    decideApproval(taskId: $taskId, decision: $decision, notes: $notes) {\n      workflowStatus\n      message\n      task {\n        id\n        status\n        reviewer\n        decision\n        notes\n        decidedAt\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription SagaProgress($workflowId: ID!) {\n    workflowStatusChanged(workflowId: $workflowId, afterVersion: 0) {\n      workflowId\n      version\n      event\n      status\n      step\n      at\n    }\n  }\n"): (typeof documents)["\n  subscription SagaProgress($workflowId: ID!) {\n    workflowStatusChanged(workflowId: $workflowId, afterVersion: 0) {\n      workflowId\n      version\n      event\n      status\n      step\n      at\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ChartWorkflowRuns {\n    workflowExecutions(first: 200) {\n      nodes {\n        id\n        status\n        createdAt\n      }\n    }\n  }\n"): (typeof documents)["\n  query ChartWorkflowRuns {\n    workflowExecutions(first: 200) {\n      nodes {\n        id\n        status\n        createdAt\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ChartOcrStats {\n    ocrStats {\n      totalJobs\n      averageConfidence\n      confidenceHistogram\n    }\n  }\n"): (typeof documents)["\n  query ChartOcrStats {\n    ocrStats {\n      totalJobs\n      averageConfidence\n      confidenceHistogram\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ChartLedgerEvents {\n    ledgerEvents(first: 1000) {\n      totalCount\n      nodes {\n        id\n        createdAt\n      }\n    }\n  }\n"): (typeof documents)["\n  query ChartLedgerEvents {\n    ledgerEvents(first: 1000) {\n      totalCount\n      nodes {\n        id\n        createdAt\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConfigOverview {\n    configEffective {\n      tenantId\n      seq\n      config\n      provenance {\n        pointer\n        layer\n        bundleId\n        version\n        seq\n      }\n    }\n    configBundles(limit: 50) {\n      id\n      layer\n      scope\n      namespace\n      version\n      sha256\n      author\n      createdAt\n    }\n    configRollouts(limit: 50) {\n      id\n      bundleId\n      percentage\n      hashBy\n      status\n      requestedBy\n      approvedBy\n      approvalTaskId\n      scheduledAt\n      changeSeq\n    }\n  }\n"): (typeof documents)["\n  query ConfigOverview {\n    configEffective {\n      tenantId\n      seq\n      config\n      provenance {\n        pointer\n        layer\n        bundleId\n        version\n        seq\n      }\n    }\n    configBundles(limit: 50) {\n      id\n      layer\n      scope\n      namespace\n      version\n      sha256\n      author\n      createdAt\n    }\n    configRollouts(limit: 50) {\n      id\n      bundleId\n      percentage\n      hashBy\n      status\n      requestedBy\n      approvedBy\n      approvalTaskId\n      scheduledAt\n      changeSeq\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ConfigChangedLive {\n    configChanged {\n      seq\n      namespace\n      layer\n      kind\n    }\n  }\n"): (typeof documents)["\n  subscription ConfigChangedLive {\n    configChanged {\n      seq\n      namespace\n      layer\n      kind\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation PublishConfigBundleFromConsole($input: PublishConfigBundleInput!) {\n    publishConfigBundle(input: $input) {\n      id\n      layer\n      scope\n      namespace\n      version\n      sha256\n    }\n  }\n"): (typeof documents)["\n  mutation PublishConfigBundleFromConsole($input: PublishConfigBundleInput!) {\n    publishConfigBundle(input: $input) {\n      id\n      layer\n      scope\n      namespace\n      version\n      sha256\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation PromoteConfigBundleFromConsole($bundleId: ID!, $percentage: Int, $hashBy: String, $scheduledAt: String) {\n    promoteConfigBundle(bundleId: $bundleId, percentage: $percentage, hashBy: $hashBy, scheduledAt: $scheduledAt) {\n      id\n      status\n      percentage\n      approvalTaskId\n    }\n  }\n"): (typeof documents)["\n  mutation PromoteConfigBundleFromConsole($bundleId: ID!, $percentage: Int, $hashBy: String, $scheduledAt: String) {\n    promoteConfigBundle(bundleId: $bundleId, percentage: $percentage, hashBy: $hashBy, scheduledAt: $scheduledAt) {\n      id\n      status\n      percentage\n      approvalTaskId\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RollbackConfigBundleFromConsole($bundleId: ID!) {\n    rollbackConfigBundle(bundleId: $bundleId) {\n      seq\n      namespace\n      kind\n    }\n  }\n"): (typeof documents)["\n  mutation RollbackConfigBundleFromConsole($bundleId: ID!) {\n    rollbackConfigBundle(bundleId: $bundleId) {\n      seq\n      namespace\n      kind\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DataflowRuns {\n    dataflowRuns(first: 20) {\n      id\n      packId\n      packVersion\n      triggerKind\n      triggerKey\n      status\n      error\n      result\n      startedAt\n      finishedAt\n    }\n  }\n"): (typeof documents)["\n  query DataflowRuns {\n    dataflowRuns(first: 20) {\n      id\n      packId\n      packVersion\n      triggerKind\n      triggerKey\n      status\n      error\n      result\n      startedAt\n      finishedAt\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DataflowRunDetail($id: ID!) {\n    dataflowRun(id: $id) {\n      id\n      status\n      breaks(first: 100) {\n        cursor\n        reconciliation\n        category\n        key\n        detail\n      }\n      evidence {\n        sha256\n        createdAt\n        content\n      }\n    }\n  }\n"): (typeof documents)["\n  query DataflowRunDetail($id: ID!) {\n    dataflowRun(id: $id) {\n      id\n      status\n      breaks(first: 100) {\n        cursor\n        reconciliation\n        category\n        key\n        detail\n      }\n      evidence {\n        sha256\n        createdAt\n        content\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query EventSubscriptions {\n    eventSubscriptions {\n      name\n      topic\n      position\n      maxDeliveries\n    }\n  }\n"): (typeof documents)["\n  query EventSubscriptions {\n    eventSubscriptions {\n      name\n      topic\n      position\n      maxDeliveries\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DeadLetters($name: String!, $limit: Int) {\n    eventSubscription(name: $name) {\n      name\n      topic\n      position\n      maxDeliveries\n      ackTimeoutMs\n      backoffMs\n      deadLetters(limit: $limit) {\n        subscription\n        position\n        attempts\n        lastError\n        deadAt\n        event {\n          id\n          type\n          subject\n          time\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query DeadLetters($name: String!, $limit: Int) {\n    eventSubscription(name: $name) {\n      name\n      topic\n      position\n      maxDeliveries\n      ackTimeoutMs\n      backoffMs\n      deadLetters(limit: $limit) {\n        subscription\n        position\n        attempts\n        lastError\n        deadAt\n        event {\n          id\n          type\n          subject\n          time\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DeadLetter($subscription: String!, $position: Float!) {\n    deadLetter(subscription: $subscription, position: $position) {\n      subscription\n      position\n      attempts\n      lastError\n      deadAt\n      event {\n        id\n        topic\n        position\n        source\n        type\n        specversion\n        time\n        subject\n        tenantId\n        traceparent\n        data\n      }\n    }\n  }\n"): (typeof documents)["\n  query DeadLetter($subscription: String!, $position: Float!) {\n    deadLetter(subscription: $subscription, position: $position) {\n      subscription\n      position\n      attempts\n      lastError\n      deadAt\n      event {\n        id\n        topic\n        position\n        source\n        type\n        specversion\n        time\n        subject\n        tenantId\n        traceparent\n        data\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RedriveDeadLetters($subscription: String!, $positions: [Float!]) {\n    redriveDeadLetters(subscription: $subscription, positions: $positions)\n  }\n"): (typeof documents)["\n  mutation RedriveDeadLetters($subscription: String!, $positions: [Float!]) {\n    redriveDeadLetters(subscription: $subscription, positions: $positions)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ReplayEventSubscription($name: String!, $from: ReplayFromInput!) {\n    replayEventSubscription(name: $name, from: $from)\n  }\n"): (typeof documents)["\n  mutation ReplayEventSubscription($name: String!, $from: ReplayFromInput!) {\n    replayEventSubscription(name: $name, from: $from)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query IngestionPipelines {\n    ingestionPipelines(limit: 200) {\n      id\n      name\n      sourceKind\n      version\n      definition\n      updatedAt\n    }\n  }\n"): (typeof documents)["\n  query IngestionPipelines {\n    ingestionPipelines(limit: 200) {\n      id\n      name\n      sourceKind\n      version\n      definition\n      updatedAt\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query IngestionPipelineDetail($id: ID!) {\n    ingestionPipeline(id: $id) {\n      id\n      name\n      version\n      versions {\n        version\n        definitionSha256\n        createdBy\n        createdAt\n      }\n      batches(limit: 20) {\n        id\n        pipelineVersion\n        sourceName\n        status\n        rowsRead\n        rowsStaged\n        rowsQuarantined\n        error\n        createdAt\n        completedAt\n        manifest {\n          contentSha256\n        }\n        schemaChange {\n          status\n          added\n          removed\n          reviewer\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query IngestionPipelineDetail($id: ID!) {\n    ingestionPipeline(id: $id) {\n      id\n      name\n      version\n      versions {\n        version\n        definitionSha256\n        createdBy\n        createdAt\n      }\n      batches(limit: 20) {\n        id\n        pipelineVersion\n        sourceName\n        status\n        rowsRead\n        rowsStaged\n        rowsQuarantined\n        error\n        createdAt\n        completedAt\n        manifest {\n          contentSha256\n        }\n        schemaChange {\n          status\n          added\n          removed\n          reviewer\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription IngestionBatchProgressLive($pipelineId: ID!) {\n    ingestionBatchProgress(pipelineId: $pipelineId) {\n      batchId\n      status\n      rowsRead\n      rowsStaged\n      rowsQuarantined\n    }\n  }\n"): (typeof documents)["\n  subscription IngestionBatchProgressLive($pipelineId: ID!) {\n    ingestionBatchProgress(pipelineId: $pipelineId) {\n      batchId\n      status\n      rowsRead\n      rowsStaged\n      rowsQuarantined\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query IngestionQuarantine($id: ID!) {\n    ingestionBatch(id: $id) {\n      id\n      sourceName\n      quarantine(limit: 200) {\n        offset\n        reason\n        record\n        rawSha256\n      }\n    }\n  }\n"): (typeof documents)["\n  query IngestionQuarantine($id: ID!) {\n    ingestionBatch(id: $id) {\n      id\n      sourceName\n      quarantine(limit: 200) {\n        offset\n        reason\n        record\n        rawSha256\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query LedgerEvents($filter: LedgerEventFilter, $first: Int) {\n    ledgerEvents(filter: $filter, first: $first) {\n      totalCount\n      nodes {\n        id\n        seq\n        eventType\n        eventData\n        createdAt\n        chainHash\n        userId\n        correlationId\n        description\n        writtenBy\n      }\n    }\n  }\n"): (typeof documents)["\n  query LedgerEvents($filter: LedgerEventFilter, $first: Int) {\n    ledgerEvents(filter: $filter, first: $first) {\n      totalCount\n      nodes {\n        id\n        seq\n        eventType\n        eventData\n        createdAt\n        chainHash\n        userId\n        correlationId\n        description\n        writtenBy\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query VerifyLedger {\n    verifyLedger {\n      valid\n      totalEvents\n      error\n    }\n  }\n"): (typeof documents)["\n  query VerifyLedger {\n    verifyLedger {\n      valid\n      totalEvents\n      error\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription LedgerAppended {\n    ledgerEventAppended {\n      id\n      seq\n    }\n  }\n"): (typeof documents)["\n  subscription LedgerAppended {\n    ledgerEventAppended {\n      id\n      seq\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TenantDashboards($from: String) {\n    requests: metricSeries(metric: \"tenant_requests_total\", rate: true, from: $from, stepSeconds: 60) {\n      points {\n        t\n        v\n      }\n    }\n  }\n"): (typeof documents)["\n  query TenantDashboards($from: String) {\n    requests: metricSeries(metric: \"tenant_requests_total\", rate: true, from: $from, stepSeconds: 60) {\n      points {\n        t\n        v\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PlatformDashboards($from: String) {\n    requests: metricSeries(metric: \"http_requests_total\", rate: true, scope: \"platform\", from: $from, stepSeconds: 60) {\n      points {\n        t\n        v\n      }\n    }\n    errors: metricSeries(\n      metric: \"http_request_errors_total\"\n      rate: true\n      scope: \"platform\"\n      from: $from\n      stepSeconds: 60\n    ) {\n      points {\n        t\n        v\n      }\n    }\n    seconds: metricSeries(\n      metric: \"http_request_duration_seconds_sum\"\n      rate: true\n      scope: \"platform\"\n      from: $from\n      stepSeconds: 60\n    ) {\n      points {\n        t\n        v\n      }\n    }\n    count: metricSeries(\n      metric: \"http_request_duration_seconds_count\"\n      rate: true\n      scope: \"platform\"\n      from: $from\n      stepSeconds: 60\n    ) {\n      points {\n        t\n        v\n      }\n    }\n  }\n"): (typeof documents)["\n  query PlatformDashboards($from: String) {\n    requests: metricSeries(metric: \"http_requests_total\", rate: true, scope: \"platform\", from: $from, stepSeconds: 60) {\n      points {\n        t\n        v\n      }\n    }\n    errors: metricSeries(\n      metric: \"http_request_errors_total\"\n      rate: true\n      scope: \"platform\"\n      from: $from\n      stepSeconds: 60\n    ) {\n      points {\n        t\n        v\n      }\n    }\n    seconds: metricSeries(\n      metric: \"http_request_duration_seconds_sum\"\n      rate: true\n      scope: \"platform\"\n      from: $from\n      stepSeconds: 60\n    ) {\n      points {\n        t\n        v\n      }\n    }\n    count: metricSeries(\n      metric: \"http_request_duration_seconds_count\"\n      rate: true\n      scope: \"platform\"\n      from: $from\n      stepSeconds: 60\n    ) {\n      points {\n        t\n        v\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ObservedSpans($service: String, $operation: String, $minDurationMs: Float, $error: Boolean) {\n    observedSpans(service: $service, operation: $operation, minDurationMs: $minDurationMs, error: $error, limit: 50) {\n      traceId\n      spanId\n      service\n      name\n      startTime\n      durationMs\n      error\n    }\n  }\n"): (typeof documents)["\n  query ObservedSpans($service: String, $operation: String, $minDurationMs: Float, $error: Boolean) {\n    observedSpans(service: $service, operation: $operation, minDurationMs: $minDurationMs, error: $error, limit: 50) {\n      traceId\n      spanId\n      service\n      name\n      startTime\n      durationMs\n      error\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ObservedTrace($traceId: String!) {\n    observedTrace(traceId: $traceId) {\n      traceId\n      spans {\n        spanId\n        parentSpanId\n        service\n        name\n        startTime\n        durationMs\n        error\n        attributes\n      }\n    }\n  }\n"): (typeof documents)["\n  query ObservedTrace($traceId: String!) {\n    observedTrace(traceId: $traceId) {\n      traceId\n      spans {\n        spanId\n        parentSpanId\n        service\n        name\n        startTime\n        durationMs\n        error\n        attributes\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ObservabilityAlerts {\n    observabilityAlerts {\n      state\n      value\n      firedAt\n      silencedBy\n      labels\n      rule {\n        id\n        name\n        kind\n        metric\n        op\n        threshold\n        windowSeconds\n        forSeconds\n        severity\n        summary\n      }\n    }\n    observabilitySilences {\n      id\n      matchers\n      startsAt\n      endsAt\n      createdBy\n      comment\n    }\n  }\n"): (typeof documents)["\n  query ObservabilityAlerts {\n    observabilityAlerts {\n      state\n      value\n      firedAt\n      silencedBy\n      labels\n      rule {\n        id\n        name\n        kind\n        metric\n        op\n        threshold\n        windowSeconds\n        forSeconds\n        severity\n        summary\n      }\n    }\n    observabilitySilences {\n      id\n      matchers\n      startsAt\n      endsAt\n      createdBy\n      comment\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateSilence($input: SilenceInput!) {\n    createSilence(input: $input) {\n      id\n    }\n  }\n"): (typeof documents)["\n  mutation CreateSilence($input: SilenceInput!) {\n    createSilence(input: $input) {\n      id\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ExpireSilence($id: ID!) {\n    expireSilence(id: $id) {\n      id\n    }\n  }\n"): (typeof documents)["\n  mutation ExpireSilence($id: ID!) {\n    expireSilence(id: $id) {\n      id\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query OcrReviewQueue {\n    ocrReviewQueue(limit: 50) {\n      id\n      filename\n      mimeType\n      status\n      confidenceScore\n      extractedText\n      extractedFields\n      notes\n      createdAt\n      pages {\n        page\n        text\n        confidence\n        source\n      }\n    }\n  }\n"): (typeof documents)["\n  query OcrReviewQueue {\n    ocrReviewQueue(limit: 50) {\n      id\n      filename\n      mimeType\n      status\n      confidenceScore\n      extractedText\n      extractedFields\n      notes\n      createdAt\n      pages {\n        page\n        text\n        confidence\n        source\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ReviewOcrJob($id: ID!, $input: OcrReviewInput!) {\n    reviewOcrJob(id: $id, input: $input) {\n      id\n      status\n      extractedText\n      confidenceScore\n    }\n  }\n"): (typeof documents)["\n  mutation ReviewOcrJob($id: ID!, $input: OcrReviewInput!) {\n    reviewOcrJob(id: $id, input: $input) {\n      id\n      status\n      extractedText\n      confidenceScore\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ComplianceReportList {\n    complianceFrameworks {\n      key\n      title\n    }\n    complianceReports(first: 100) {\n      reports {\n        id\n        framework\n        reportType\n        period {\n          label\n        }\n        status\n        result\n        generatedBy\n        generatedAt\n      }\n      nextCursor\n    }\n  }\n"): (typeof documents)["\n  query ComplianceReportList {\n    complianceFrameworks {\n      key\n      title\n    }\n    complianceReports(first: 100) {\n      reports {\n        id\n        framework\n        reportType\n        period {\n          label\n        }\n        status\n        result\n        generatedBy\n        generatedAt\n      }\n      nextCursor\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ReportDetail($id: ID!) {\n    complianceReport(id: $id) {\n      id\n      framework\n      reportType\n      period {\n        start\n        end\n        label\n      }\n      status\n      result\n      summary {\n        controls\n        satisfied\n        notSatisfied\n        fresh\n        expiring\n        stale\n        evidenceItems\n        unrecorded\n      }\n      checkpoint\n      contentSha256\n      generatedBy\n      generatedAt\n      reviewedBy\n      reviewedAt\n      reviewNotes\n      ledgerEntryId\n      documentPath\n      workflowId\n      approvalTaskId\n      controls {\n        controlId\n        title\n        satisfied\n        freshness\n        evidenceCount\n        lastCollectedAt\n      }\n    }\n  }\n"): (typeof documents)["\n  query ReportDetail($id: ID!) {\n    complianceReport(id: $id) {\n      id\n      framework\n      reportType\n      period {\n        start\n        end\n        label\n      }\n      status\n      result\n      summary {\n        controls\n        satisfied\n        notSatisfied\n        fresh\n        expiring\n        stale\n        evidenceItems\n        unrecorded\n      }\n      checkpoint\n      contentSha256\n      generatedBy\n      generatedAt\n      reviewedBy\n      reviewedAt\n      reviewNotes\n      ledgerEntryId\n      documentPath\n      workflowId\n      approvalTaskId\n      controls {\n        controlId\n        title\n        satisfied\n        freshness\n        evidenceCount\n        lastCollectedAt\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ReportApprovalTask($id: ID!) {\n    approvalTask(id: $id) {\n      id\n      status\n      reviewer\n      reviewerRole\n      decidedAt\n    }\n  }\n"): (typeof documents)["\n  query ReportApprovalTask($id: ID!) {\n    approvalTask(id: $id) {\n      id\n      status\n      reviewer\n      reviewerRole\n      decidedAt\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ReportOscal($id: ID!) {\n    complianceReport(id: $id) {\n      id\n      oscal\n    }\n  }\n"): (typeof documents)["\n  query ReportOscal($id: ID!) {\n    complianceReport(id: $id) {\n      id\n      oscal\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation GenerateComplianceReport($input: ComplianceGenerateReportInput!) {\n    generateComplianceReport(input: $input) {\n      id\n      status\n      result\n    }\n  }\n"): (typeof documents)["\n  mutation GenerateComplianceReport($input: ComplianceGenerateReportInput!) {\n    generateComplianceReport(input: $input) {\n      id\n      status\n      result\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SubmitComplianceReport($id: ID!) {\n    submitComplianceReport(id: $id) {\n      id\n      status\n      workflowId\n      approvalTaskId\n    }\n  }\n"): (typeof documents)["\n  mutation SubmitComplianceReport($id: ID!) {\n    submitComplianceReport(id: $id) {\n      id\n      status\n      workflowId\n      approvalTaskId\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SignOffComplianceReport($id: ID!, $decision: ComplianceReportDecision!, $notes: String) {\n    signOffComplianceReport(id: $id, decision: $decision, notes: $notes) {\n      id\n      status\n      reviewedBy\n      reviewedAt\n      reviewNotes\n      ledgerEntryId\n    }\n  }\n"): (typeof documents)["\n  mutation SignOffComplianceReport($id: ID!, $decision: ComplianceReportDecision!, $notes: String) {\n    signOffComplianceReport(id: $id, decision: $decision, notes: $notes) {\n      id\n      status\n      reviewedBy\n      reviewedAt\n      reviewNotes\n      ledgerEntryId\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RulePacks {\n    rulePacks(first: 50) {\n      nodes {\n        id\n        version\n        status\n        author\n        ownerTenant\n        submittedAt\n        certifiedAt\n        signature\n        keyId\n        reviewers\n        definition\n        decisions {\n          decision\n          actor\n          toState\n          notes\n          createdAt\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query RulePacks {\n    rulePacks(first: 50) {\n      nodes {\n        id\n        version\n        status\n        author\n        ownerTenant\n        submittedAt\n        certifiedAt\n        signature\n        keyId\n        reviewers\n        definition\n        decisions {\n          decision\n          actor\n          toState\n          notes\n          createdAt\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SubmitRulePackForReview($id: ID!, $version: String!) {\n    submitRulePackForReview(id: $id, version: $version) {\n      id\n      version\n      status\n    }\n  }\n"): (typeof documents)["\n  mutation SubmitRulePackForReview($id: ID!, $version: String!) {\n    submitRulePackForReview(id: $id, version: $version) {\n      id\n      version\n      status\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CertifyRulePack($id: ID!, $version: String!, $notes: String) {\n    certifyRulePack(id: $id, version: $version, notes: $notes) {\n      id\n      version\n      status\n      signature\n      keyId\n    }\n  }\n"): (typeof documents)["\n  mutation CertifyRulePack($id: ID!, $version: String!, $notes: String) {\n    certifyRulePack(id: $id, version: $version, notes: $notes) {\n      id\n      version\n      status\n      signature\n      keyId\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RejectRulePack($id: ID!, $version: String!, $notes: String!) {\n    rejectRulePack(id: $id, version: $version, notes: $notes) {\n      id\n      version\n      status\n    }\n  }\n"): (typeof documents)["\n  mutation RejectRulePack($id: ID!, $version: String!, $notes: String!) {\n    rejectRulePack(id: $id, version: $version, notes: $notes) {\n      id\n      version\n      status\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ScannerFindings($status: ScannerFindingStatus) {\n    scannerFindings(status: $status, limit: 200) {\n      id\n      ruleId\n      severity\n      status\n      path\n      line\n      detail\n      controls\n      firstSeen\n      lastSeen\n    }\n    scannerTargets {\n      id\n      name\n      kind\n    }\n  }\n"): (typeof documents)["\n  query ScannerFindings($status: ScannerFindingStatus) {\n    scannerFindings(status: $status, limit: 200) {\n      id\n      ruleId\n      severity\n      status\n      path\n      line\n      detail\n      controls\n      firstSeen\n      lastSeen\n    }\n    scannerTargets {\n      id\n      name\n      kind\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ScannerPendingSuppressions {\n    scannerSuppressions(status: PENDING, limit: 100) {\n      id\n      scope\n      fingerprint\n      ruleId\n      pathGlob\n      purl\n      owner\n      justification\n      expiresAt\n      requestedBy\n      workflowId\n      createdAt\n    }\n  }\n"): (typeof documents)["\n  query ScannerPendingSuppressions {\n    scannerSuppressions(status: PENDING, limit: 100) {\n      id\n      scope\n      fingerprint\n      ruleId\n      pathGlob\n      purl\n      owner\n      justification\n      expiresAt\n      requestedBy\n      workflowId\n      createdAt\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query SecurityOverview {\n    mfaFactors {\n      factors {\n        id\n        kind\n        label\n        confirmed\n        createdAt\n        lastUsedAt\n      }\n      recoveryCodesLeft\n    }\n    sessions {\n      id\n      createdAt\n      lastUsedAt\n      amr\n      current\n    }\n  }\n"): (typeof documents)["\n  query SecurityOverview {\n    mfaFactors {\n      factors {\n        id\n        kind\n        label\n        confirmed\n        createdAt\n        lastUsedAt\n      }\n      recoveryCodesLeft\n    }\n    sessions {\n      id\n      createdAt\n      lastUsedAt\n      amr\n      current\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SecurityEnrolTotp($label: String) {\n    enrolTotp(label: $label) {\n      factorId\n      secret\n      otpauthUri\n    }\n  }\n"): (typeof documents)["\n  mutation SecurityEnrolTotp($label: String) {\n    enrolTotp(label: $label) {\n      factorId\n      secret\n      otpauthUri\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SecurityConfirmTotp($factorId: ID!, $code: String!) {\n    confirmTotp(factorId: $factorId, code: $code) {\n      factorId\n      recoveryCodes\n    }\n  }\n"): (typeof documents)["\n  mutation SecurityConfirmTotp($factorId: ID!, $code: String!) {\n    confirmTotp(factorId: $factorId, code: $code) {\n      factorId\n      recoveryCodes\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SecurityPasskeyOptions {\n    webauthnRegistrationOptions\n  }\n"): (typeof documents)["\n  mutation SecurityPasskeyOptions {\n    webauthnRegistrationOptions\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SecurityRegisterPasskey($credential: JSON!, $label: String) {\n    registerWebauthn(credential: $credential, label: $label) {\n      factorId\n      recoveryCodes\n    }\n  }\n"): (typeof documents)["\n  mutation SecurityRegisterPasskey($credential: JSON!, $label: String) {\n    registerWebauthn(credential: $credential, label: $label) {\n      factorId\n      recoveryCodes\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SecurityRenameFactor($id: ID!, $label: String) {\n    renameMfaFactor(id: $id, label: $label)\n  }\n"): (typeof documents)["\n  mutation SecurityRenameFactor($id: ID!, $label: String) {\n    renameMfaFactor(id: $id, label: $label)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SecurityRemoveFactor($id: ID!) {\n    removeMfaFactor(id: $id)\n  }\n"): (typeof documents)["\n  mutation SecurityRemoveFactor($id: ID!) {\n    removeMfaFactor(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SecurityRevokeSession($id: ID!) {\n    revokeSession(id: $id)\n  }\n"): (typeof documents)["\n  mutation SecurityRevokeSession($id: ID!) {\n    revokeSession(id: $id)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query WorkflowExecutions($status: WorkflowStatus) {\n    workflowExecutions(status: $status, first: 20) {\n      nodes {\n        id\n        status\n        workflowType\n        packId\n        packVersion\n        requestedBy\n        error\n        payload\n        createdAt\n        completedAt\n        steps {\n          step\n          path\n          type\n          status\n          attempts\n          error\n          compensationStatus\n          compensationError\n          compensatedAt\n        }\n        compensation {\n          reason\n          status\n          steps\n          parked\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query WorkflowExecutions($status: WorkflowStatus) {\n    workflowExecutions(status: $status, first: 20) {\n      nodes {\n        id\n        status\n        workflowType\n        packId\n        packVersion\n        requestedBy\n        error\n        payload\n        createdAt\n        completedAt\n        steps {\n          step\n          path\n          type\n          status\n          attempts\n          error\n          compensationStatus\n          compensationError\n          compensatedAt\n        }\n        compensation {\n          reason\n          status\n          steps\n          parked\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation PasskeySignInOptions($mfaToken: String!) {\n    webauthnAuthenticationOptions(mfaToken: $mfaToken)\n  }\n"): (typeof documents)["\n  mutation PasskeySignInOptions($mfaToken: String!) {\n    webauthnAuthenticationOptions(mfaToken: $mfaToken)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleTenants {\n    tenants {\n      id\n      name\n    }\n  }\n"): (typeof documents)["\n  query ConsoleTenants {\n    tenants {\n      id\n      name\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;