// Which assets are kept past their tenant's retention policy, and how a retention rule is judged
// by the engine: one finding per asset and policy, the age never part of the fingerprint.
import { overdueAssets } from '../../../subgraphs/compliance-scanner/data-asset-retention';
import { runPack } from '../../../subgraphs/compliance-scanner/scan-engine';
import { compilePack } from '../../../subgraphs/compliance-scanner/scanner-pack';

const DAY = 86_400_000;
const now = new Date('2026-06-01T00:00:00Z');
const ago = (days: number) => new Date(now.getTime() - days * DAY);
const policy = (record_type: string, retain_days: number | null) => ({
  record_type,
  retain_days,
  legal_minimum_days: 30,
  updated_by: null,
  updated_at: null,
});

describe('overdueAssets', () => {
  const assets = [
    { at: 'retrieval:document/old', recordType: 'rag_document', createdAt: ago(31) },
    { at: 'retrieval:document/new', recordType: 'rag_document', createdAt: ago(29) },
    { at: 'retrieval:document/bad', recordType: 'rag_document', createdAt: new Date('nope') },
    { at: 'ocr:job/x', recordType: 'ocr_job', createdAt: ago(400) },
  ];

  it('reports only assets older than the policy of their own type', () => {
    expect(overdueAssets(assets, [policy('rag_document', 30), policy('ocr_job', null)], now)).toEqual([
      { at: 'retrieval:document/old', recordType: 'rag_document', retainDays: 30, ageDays: 31 },
    ]);
  });

  it('keeps everything when the tenant has no policy', () => {
    expect(overdueAssets(assets, [policy('rag_document', null)], now)).toEqual([]);
    expect(overdueAssets(assets, [], now)).toEqual([]);
  });
});

describe('retention rules', () => {
  const rule = {
    id: 'data.retention-overdue',
    severity: 'medium',
    description: 'Kept too long.',
    remediation: 'Purge.',
    controls: ['si-12'],
    input: 'retention',
  };
  const pack = (extra: Record<string, unknown> = {}) => ({
    metadata: { pack_id: 'retention', version: '1.0.0', name: 'Retention' },
    rules: [{ ...rule, ...extra }],
  });

  it('take neither cel, pattern nor files', () => {
    expect(() => compilePack(pack({ cel: 'true' }))).toThrow(/neither cel nor pattern/);
    expect(() => compilePack(pack({ files: ['**'] }))).toThrow(/reads no files/);
  });

  it('give one finding per overdue asset; the fingerprint follows the policy, not the age', () => {
    const compiled = compilePack(pack());
    const run = (retainDays: number, ageDays: number) =>
      runPack(compiled, 'target-1', {
        kind: 'data_asset',
        asset: 'retrieval:documents',
        sightings: [],
        overdue: [{ at: 'retrieval:document/old', recordType: 'rag_document', retainDays, ageDays }],
      }).matches;
    const [first] = run(30, 31);
    expect(first).toMatchObject({ path: 'retrieval:document/old', detail: 'rag_document:30d', line: null });
    expect(run(30, 45)[0]!.fingerprint).toBe(first!.fingerprint);
    expect(run(35, 45)[0]!.fingerprint).not.toBe(first!.fingerprint);
    expect(runPack(compiled, 'target-1', { kind: 'data_asset', asset: 'x', sightings: [] }).matches).toEqual([]);
  });
});
