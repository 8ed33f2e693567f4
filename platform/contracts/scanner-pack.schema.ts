// The scanner pack (docs/scanner.md, "Packs"): the rules the compliance scanner runs over a
// target. Submitted as a draft, certified by a second person of the tenant, then signed as rule
// packs and mapping packs are (Ed25519 over the RFC 8785 canonical JSON). One definition for the
// scanner and any tool that writes packs.
import { Type, type Static } from '@sinclair/typebox';
import { PackId, SemVer } from './contract.types';

/**
 * What a rule reads: a file's lines, a parsed file, the platform's effective settings, or one
 * namespace of a tenant's configuration from the config service (`config`).
 */
export const SCANNER_RULE_INPUTS = [
  'lines',
  'dockerfile',
  'yaml',
  'package_json',
  'settings',
  'secrets',
  'config',
  /** A data asset's records sampled for unmasked PII with platform/redaction's detectors (no cel, no pattern). */
  'pii',
  /** A data asset's records older than the tenant's retention policy for their type (no cel, no pattern). */
  'retention',
] as const;
export type ScannerRuleInput = (typeof SCANNER_RULE_INPUTS)[number];

export const SCANNER_SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type ScannerSeverity = (typeof SCANNER_SEVERITIES)[number];

const RuleId = Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]*$' });
const Glob = Type.String({ minLength: 1, maxLength: 500 });

export const ScannerRuleSchema = Type.Object(
  {
    id: RuleId,
    severity: Type.Union(SCANNER_SEVERITIES.map((s) => Type.Literal(s))),
    description: Type.String({ minLength: 1, maxLength: 2000 }),
    remediation: Type.String({ minLength: 1, maxLength: 2000 }),
    /** The compliance catalog's control ids the rule evidences (e.g. "cm-6", "CC6.1"). */
    controls: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 100 }),
    input: Type.Union(SCANNER_RULE_INPUTS.map((s) => Type.Literal(s))),
    /** Repository files the rule reads (picomatch globs; default by input: Dockerfile*, *.yaml...). */
    files: Type.Optional(Type.Array(Glob, { minItems: 1, maxItems: 50 })),
    /**
     * CEL over `file` (the parsed input) and `path`: true is one finding for the file; a list is a
     * finding per element (an element's `line` and `text` place it). `lines` rules may give
     * `pattern` instead: a regular expression matched line by line.
     */
    cel: Type.Optional(Type.String({ minLength: 1, maxLength: 4000 })),
    pattern: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { additionalProperties: false },
);
export type ScannerRule = Static<typeof ScannerRuleSchema>;

export const ScannerPackSchema = Type.Object(
  {
    metadata: Type.Object(
      {
        pack_id: PackId,
        version: SemVer,
        name: Type.String({ minLength: 1, maxLength: 200 }),
        description: Type.Optional(Type.String({ maxLength: 2000 })),
      },
      { additionalProperties: false },
    ),
    rules: Type.Array(ScannerRuleSchema, { minItems: 1, maxItems: 500 }),
  },
  { additionalProperties: false, $id: 'scanner.pack.v1' },
);
export type ScannerPackDocument = Static<typeof ScannerPackSchema>;
