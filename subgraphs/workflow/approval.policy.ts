// Which work needs a human approval (spec 03): legal work (title transfers, lien releases,
// ownership changes), financial work above a configurable amount, compliance work (regulatory
// filings, audit modifications) and risk work (high-value operations, sensitive data access);
// and wherever a pack asks (`requires_approval`, or an `hil_approval` step). A pack's explicit
// `requires_approval` wins over its type's default. And the words a reviewer may use.
import { InputError } from '../../platform/errors/domain-errors';
import type { Decision, WorkflowPack, WorkflowType } from './workflow.types';

export function requiresApproval(
  pack: WorkflowPack,
  workflowType: WorkflowType,
  payload: Record<string, unknown>,
  financialThreshold: number,
): boolean {
  if (pack.requires_approval !== undefined) return pack.requires_approval;
  switch (workflowType) {
    case 'legal':
    case 'compliance':
    case 'risk':
      return true;
    case 'financial': {
      // The amount decides; a financial request that states none is treated as above the line.
      const amount = Number(payload.amount);
      return !Number.isFinite(amount) || Math.abs(amount) > financialThreshold;
    }
    case 'operational':
      return false;
  }
}

/**
 * The spec's example word is `approved`; its list says approve, reject, defer. Each is accepted in
 * both forms, case-insensitively; anything else is a 422 naming `decision`.
 */
const WORDS: Record<string, Decision> = {
  approve: 'approve',
  approved: 'approve',
  reject: 'reject',
  rejected: 'reject',
  defer: 'defer',
  deferred: 'defer',
};

export const DECISION_WORDS = Object.keys(WORDS);

export function parseDecision(word: unknown): Decision {
  const decision = typeof word === 'string' ? WORDS[word.trim().toLowerCase()] : undefined;
  if (!decision)
    throw InputError.of(
      ['decision'],
      `Input should be one of ${DECISION_WORDS.map((w) => `'${w}'`).join(', ')}`,
      'enum',
    );
  return decision;
}
