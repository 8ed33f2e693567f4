// The built-in GTAS-style pack (issue 33): a trial balance's account lines reconciled against the
// vouchers posted to them (summed per account by SQL over the two inputs), amounts within a cent;
// the run appends the spec's `gtas_reconciliation` event (spec 03: trial_balance_id,
// voucher_count, total_amount, discrepancies) to the ledger through the outbox. Certified by the
// platform itself: it is code-reviewed with the service, not submitted to the registry.
import type { DataflowPack } from './dataflow.types';

export const GTAS_PACK_ID = 'builtin.gtas-reconciliation';

export const GTAS_PACK: DataflowPack = {
  kind: 'dataflow',
  metadata: {
    pack_id: GTAS_PACK_ID,
    version: '1.0.0',
    name: 'GTAS trial balance against vouchers',
    description:
      'Datasets `trial_balance` (key: account; fields account, amount, trial_balance_id) and `vouchers` (fields account, amount).',
  },
  inputs: [
    { name: 'trial_balance', source: 'dataset', dataset: 'trial_balance' },
    { name: 'vouchers', source: 'dataset', dataset: 'vouchers' },
  ],
  transforms: [
    {
      name: 'voucher_totals',
      type: 'sql',
      inputs: ['vouchers'],
      sql:
        "SELECT data->>'account' AS key, jsonb_build_object('account', data->>'account', " +
        "'amount', round(sum((data->>'amount')::numeric), 2), 'vouchers', count(*)) AS data " +
        "FROM vouchers GROUP BY data->>'account'",
      output: 'voucher_totals',
    },
  ],
  reconciliations: [
    {
      name: 'gtas',
      left: 'trial_balance',
      right: 'voucher_totals',
      compare: [{ left: 'amount', rule: 'amount', tolerance: 0.01 }],
      amount_field: 'amount',
      ledger_event: 'gtas_reconciliation',
    },
  ],
  outputs: [{ name: 'voucher_totals' }],
  triggers: [{ type: 'ingestion', dataset: 'vouchers' }, { type: 'on_demand' }, { type: 'workflow_step' }],
};

export const BUILTIN_PACKS: readonly DataflowPack[] = [GTAS_PACK];
