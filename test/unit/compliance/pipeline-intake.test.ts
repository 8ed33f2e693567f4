// The pipeline topics as the intake takes them (pure): the types mapping packs match, the pack
// that narrows rules, the control ids a scanner finding names, and the event id (the CloudEvents
// id when there is one, else a content-derived id, so a repeat of a bare payload is one event).
import {
  reconciliationEvent,
  RECONCILIATION_TYPE,
  scannerFindingEvent,
  SCANNER_FINDING_TYPE,
} from '../../../subgraphs/compliance/compliance.intake';

const at = '2026-11-20T10:00:00.000Z';
const rec = {
  tenant_id: 't1',
  run_id: 'r1',
  pack_id: 'gtas',
  pack_version: '1.0.0',
  reconciliation: 'gtas_vs_ledger',
  result: 'failed' as const,
  matched: 1,
  unmatched_left: 1,
  unmatched_right: 0,
  breaks: 1,
  result_sha256: 'a'.repeat(64),
  at,
};
const finding = {
  tenant_id: 't1',
  finding_id: 'f1',
  scan_id: 's1',
  pack_id: 'scan',
  pack_version: '1.0.0',
  rule_id: 'r',
  severity: 'low' as const,
  status: 'resolved' as const,
  target_kind: 'configuration' as const,
  location: '/a/b',
  fingerprint: 'b'.repeat(64),
  controls: ['ac-2', 'CC6.1', 'ac-2'],
  at,
};

it('a reconciliation is matched as reconciliation, its topic and its result', () => {
  const e = reconciliationEvent(rec, { id: 'ev-1' });
  expect(e).toMatchObject({
    id: 'ev-1',
    tenantId: 't1',
    topic: 'dataflow.reconciliation_completed',
    types: [RECONCILIATION_TYPE, 'dataflow.reconciliation_completed', 'reconciliation.failed'],
    rulePackId: 'gtas',
    occurredAt: new Date(at),
  });
  expect(e.controlIds).toBeUndefined();
});

it('a scanner finding carries its control ids (once each) and is matched by its status', () => {
  const e = scannerFindingEvent(finding, { id: 'ev-2' });
  expect(e).toMatchObject({
    types: [SCANNER_FINDING_TYPE, 'scanner.finding', 'scanner.finding.resolved'],
    rulePackId: 'scan',
    controlIds: ['ac-2', 'CC6.1'],
  });
});

it('a bare payload gets a content-derived id: the same payload is the same event', () => {
  const a = scannerFindingEvent(finding).id;
  expect(a).toMatch(/^sha256:[0-9a-f]{64}$/);
  expect(scannerFindingEvent({ ...finding }).id).toBe(a);
  expect(scannerFindingEvent({ ...finding, status: 'open' }).id).not.toBe(a);
});
