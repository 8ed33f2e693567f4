// One entry per subgraph: its folder under subgraphs/, the per-request context its resolvers
// receive, and mappers, the TypeScript types its resolvers really pass as parents (a domain record
// or the view its resolvers build) where that differs from the SDL's shape. Paths are relative to
// the generated file, subgraphs/<name>/resolvers.generated.ts. A new subgraph adds its line here.
const targets = [
  { name: 'ai-broker', contextType: './graphql.context#AiBrokerGraphQLContext' },
  {
    name: 'observability',
    contextType: './graphql.context#ObservabilityGraphQLContext',
    mappers: {
      ObservedSpan: './observability.types#SpanRecord',
      AlertRule: './alert.types#AlertRule',
      Alert: './alert.types#AlertView',
      Silence: './alert.types#Silence',
    },
  },
  {
    name: 'compliance',
    contextType: './graphql.context#ComplianceGraphQLContext',
    mappers: {
      ComplianceFramework: './compliance.types#Framework',
      ComplianceControl: './resolvers#ControlNode',
      ComplianceControlFreshness: './compliance.types#ControlFreshness',
      ComplianceEvidence: './compliance.types#EvidenceItem',
      ComplianceEvidenceRevision: './compliance.types#EvidenceRevision',
      ComplianceMappingPack: './compliance.types#MappingPack',
      ComplianceReport: './report.types#ComplianceReport',
      ComplianceReportPeriod: './report.types#ReportPeriod',
      ComplianceReportSummary: './report.types#ReportSummary',
      ComplianceReportControl: './report.types#ReportControl',
      ComplianceReportEvidence: './report.service#ReportEvidenceWithProof',
      ComplianceReportEvidencePage: './report.service#ReportEvidencePage',
      ComplianceReportPage: './report.service#ReportPage',
      RetentionRule: './retention.service#RetentionRule',
      LegalHold: '../../platform/retention/retention.types#LegalHold',
      ErasureRecord: './erasure.store#ErasureRecord',
    },
    // Mapped to the domain's lower-case words in resolvers.ts.
    enumValues: {
      ComplianceFrameworkKind: './compliance.types#FrameworkKind',
      ComplianceFreshness: './compliance.types#Freshness',
      ComplianceMappingPackStatus: './compliance.types#MappingPackStatus',
      ComplianceReportStatus: './report.types#ReviewedReportStatus',
      ComplianceReportResult: './report.types#ReportResult',
      ComplianceReportDecision: './report.types#ReportDecision',
    },
  },
  {
    name: 'dataflow',
    contextType: './graphql.context#DataflowGraphQLContext',
    mappers: { DataflowRun: './resolvers#RunNode' },
  },
  {
    name: 'compliance-scanner',
    contextType: './graphql.context#ComplianceScannerGraphQLContext',
    mappers: {
      ScannerPack: './scanner.types#ScannerPack',
      ScannerTarget: './scanner.types#ScanTarget',
      ScannerScan: './scanner.types#Scan',
      ScannerFinding: './scanner.types#Finding',
      ScannerSuppression: './scanner.types#Suppression',
      ScannerSchedule: './scanner.types#ScanSchedule',
    },
    // Mapped to the domain's lower-case words in resolvers.ts.
    enumValues: {
      ScannerFindingStatus: './scanner.types#FindingStatus',
      ScannerSuppressionStatus: './scanner.types#SuppressionStatus',
      ScannerSuppressionScope: './scanner.types#SuppressionScope',
    },
  },
  {
    name: 'events',
    contextType: './graphql.context#EventsGraphQLContext',
    mappers: {
      EventTopic: '../../platform/events/backbone/backbone.types#Topic',
      BackboneEvent: '../../platform/events/backbone/backbone.types#EventRecord',
      EventSubscription: '../../platform/events/backbone/backbone.types#Subscription',
      DeadLetter: '../../platform/events/backbone/backbone.types#DeadLetter',
      LeasedMessage: '../../platform/events/backbone/backbone.types#LeasedMessage',
      PlatformGroup: '../../platform/events/backbone/platform-group.store#PlatformGroupStats',
      WebhookEndpoint: './webhooks/endpoint.service#Endpoint',
      RotatedWebhookSecret: './webhooks/endpoint.service#RotatedSecret',
      WebhookAttempt: './webhooks/delivery.store#DeliveryRow',
      WebhookMessage: './webhooks/delivery.store#MessageRow',
    },
  },
  {
    name: 'ingestion',
    contextType: './graphql.context#IngestionGraphQLContext',
    mappers: {
      IngestionPipeline: './pipeline.types#Pipeline',
      IngestionBatch: './pipeline.types#Batch',
      IngestionQuarantinedRecord: './pipeline.types#QuarantinedRecord',
      IngestionPipelineVersion: './pipeline.types#PipelineVersion',
      IngestionSchemaChange: './pipeline.types#SchemaChange',
    },
  },
  { name: 'identity', contextType: './graphql.context#IdentityGraphQLContext' },
  {
    name: 'ledger',
    contextType: './graphql.context#LedgerGraphQLContext',
    mappers: {
      LedgerEvent: './ledger.types#LedgerEvent',
      LedgerEventConnection: './resolvers#LedgerEventConnectionNode',
      // Identity owns User; here it is only the key.
      User: '{ username: string }',
    },
  },
  {
    name: 'ocr',
    contextType: './graphql.context#OcrGraphQLContext',
    mappers: { OcrJob: './ocr.types#OcrJob' },
    // graphql-upload-ts hands resolvers a promise of the file.
    scalars: { Upload: "Promise<import('graphql-upload-ts').FileUpload>" },
  },
  {
    name: 'config',
    contextType: './graphql.context#ConfigGraphQLContext',
    mappers: {
      ConfigBundle: './config.types#Bundle',
      ConfigRollout: './config.types#Rollout',
      ConfigChange: './config.types#Change',
      ConfigChanged: './config.types#ChangeNotice',
      ConfigEffective: './config.types#Effective',
    },
  },
  {
    name: 'packs-registry',
    contextType: './graphql.context#PacksRegistryGraphQLContext',
    mappers: { PackEntry: './pack.types#PackEntry' },
    // The resolvers map these enums to the domain's lower-case words (resolvers.ts), so arguments
    // arrive, and results leave, as those words.
    enumValues: {
      PackKind: './pack.types#PackKind',
      PackStatus: './pack.types#PackStatus',
      PackArtifactFormat: './pack.types#ArtifactFormat',
      DependencyKind: './pack-dependencies#NodeKind',
    },
  },
  {
    name: 'rag',
    contextType: './graphql.context#RagGraphQLContext',
    mappers: { Chunk: './resolvers#ChunkNode', IngestJob: './resolvers#IngestJobNode' },
    scalars: { Upload: "Promise<import('graphql-upload-ts').FileUpload>" },
  },
  {
    name: 'rulepack-registry',
    contextType: './graphql.context#RulePackRegistryGraphQLContext',
    mappers: {
      RulePack: './rulepack-registry.types#RulePackVersionRecord',
      RulePackDecision: './rulepack-registry.types#DecisionRecord',
      RulePackConnection: './resolvers#RulePackConnectionNode',
    },
    // Mapped to spec 01's lower-case words in resolvers.ts.
    enumValues: {
      RulePackStatus: './rulepack-registry.types#RulePackStatus',
      RulePackArtifactFormat: { YAML: 'yaml', JSON: 'json' },
    },
  },
  {
    name: 'schema-registry',
    contextType: './graphql.context#SchemaRegistryGraphQLContext',
    mappers: { Schema: './resolvers#SchemaNode' },
  },
  {
    name: 'validation',
    contextType: './graphql.context#ValidationGraphQLContext',
    mappers: { ValidationRun: './resolvers#ValidationRunNode' },
  },
  {
    name: 'workflow',
    contextType: './graphql.context#WorkflowGraphQLContext',
    mappers: {
      WorkflowExecution: './resolvers#ExecutionNode',
      WorkflowStep: './workflow.types#StepRecord',
      ApprovalTask: './workflow.types#ApprovalTask',
      WorkflowStatusChange: './workflow.types#Transition',
      ExecuteWorkflowResult: './resolvers#ExecuteResultNode',
      ApprovalDecision: './workflow.service#DecideResult',
      WorkflowTrigger: './trigger.types#WorkflowTrigger',
    },
  },
];

module.exports = { targets };
