// Every page of the console, in menu order. A later service adds its page here: a path under
// /console/, a label, and the component (docs/console.md says the rest: codegen and a test).
import type { ComponentType } from 'react';
import type { Claims } from '../session/claims';
import { ApprovalsPage } from './approvals.page';
import { ChartsPage } from './charts.page';
import { DataflowPage } from './dataflow.page';
import { ConfigPage } from './config.page';
import { DeadLettersPage } from './dead-letters.page';
import { IngestionPage } from './ingestion.page';
import { LedgerPage } from './ledger.page';
import { ObservabilityPage } from './observability.page';
import { OcrPage } from './ocr.page';
import { ReportsPage } from './reports.page';
import { RulePacksPage } from './rule-packs.page';
import { ScannerPage } from './scanner.page';
import { SecurityPage } from './security.page';
import { WorkflowsPage } from './workflows.page';

export interface ConsolePage {
  /** The path after /console/. */
  path: string;
  label: string;
  component: ComponentType<{ me: Claims }>;
}

export const PAGES: readonly ConsolePage[] = [
  { path: 'approvals', label: 'Approvals', component: ApprovalsPage },
  { path: 'ocr', label: 'OCR review', component: OcrPage },
  { path: 'rule-packs', label: 'Rule packs', component: RulePacksPage },
  { path: 'ledger', label: 'Ledger', component: LedgerPage },
  { path: 'workflows', label: 'Workflows', component: WorkflowsPage },
  { path: 'dead-letters', label: 'Dead letters', component: DeadLettersPage },
  { path: 'charts', label: 'Charts', component: ChartsPage },
  { path: 'reports', label: 'Compliance reports', component: ReportsPage },
  { path: 'security', label: 'Security', component: SecurityPage },
  { path: 'ingestion', label: 'Ingestion', component: IngestionPage },
  { path: 'dataflow', label: 'DataFlow', component: DataflowPage },
  { path: 'config', label: 'Configuration', component: ConfigPage },
  { path: 'observability', label: 'Observability', component: ObservabilityPage },
  { path: 'scanner', label: 'Compliance scanner', component: ScannerPage },
];
