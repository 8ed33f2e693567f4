// A pack that cannot be compiled. Each issue names where in the pack the problem is, as a path
// from the pack's root (['rules', 3, 'value']), so the registry and the validation service can
// report it as a 422 naming the field.
export interface RulePackIssue {
  path: (string | number)[];
  message: string;
  /** A stable machine name: the JSON Schema keyword (`enum`, `required`, ...) or one of ours. */
  type: string;
}

export class RulePackError extends Error {
  override readonly name = 'RulePackError';
  constructor(readonly issues: RulePackIssue[]) {
    super(`invalid rule pack: ${issues.map((i) => `${i.path.join('.') || '(pack)'}: ${i.message}`).join('; ')}`);
  }
}
