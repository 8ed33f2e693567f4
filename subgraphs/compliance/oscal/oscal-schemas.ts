// The schemas an imported document must satisfy: NIST's OSCAL 1.0.0 catalog and profile JSON
// Schemas (vendored unchanged under platform/contracts/oscal/) and this platform's framework
// mapping schema. Ajv 8 (draft-07) compiles each once per process, on first use: the two NIST
// schemas take about a second of CPU each, which every test that boots the whole platform would
// otherwise pay at start. Ajv's defaults fit them: `unicodeRegExp` (on by default) is what their
// `\p{L}`-style token patterns need, and ajv-formats supplies the four formats they use
// (date-time, email, uri, uri-reference). One error is enough to refuse a document, so
// `allErrors` stays off: a hostile document cannot make the validator collect millions of errors.
import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { InputIssue } from '../../../platform/errors/domain-errors';
import { issuesFromValidation } from '../../../platform/http/validation';
import { PROJECT_ROOT } from '../../../platform/project-root';

export type DocumentSchema = 'catalog' | 'profile' | 'framework-mapping' | 'assessment-results';

const FILES: Record<DocumentSchema, string> = {
  catalog: 'oscal_catalog_schema.json',
  profile: 'oscal_profile_schema.json',
  'framework-mapping': 'framework-mapping.schema.json',
  // Not imported: the compliance reports' OSCAL export is checked against it before it is served.
  'assessment-results': 'oscal_assessment-results_schema.json',
};

export const OSCAL_SCHEMA_DIR = path.join(PROJECT_ROOT, 'platform/contracts/oscal');

const compiled = new Map<DocumentSchema, ValidateFunction>();

function validatorOf(kind: DocumentSchema): ValidateFunction {
  let validate = compiled.get(kind);
  if (!validate) {
    const ajv = new Ajv({ allErrors: false, strict: true });
    addFormats(ajv, ['date-time', 'email', 'uri', 'uri-reference']);
    const schema = JSON.parse(fs.readFileSync(path.join(OSCAL_SCHEMA_DIR, FILES[kind]), 'utf8')) as object;
    validate = ajv.compile(schema);
    compiled.set(kind, validate);
  }
  return validate;
}

/** The schema's first complaint about `document`, located under `document` (FastAPI's loc), or none. */
export function schemaIssues(kind: DocumentSchema, document: unknown): InputIssue[] {
  const validate = validatorOf(kind);
  if (validate(document)) return [];
  return issuesFromValidation(validate.errors ?? [], 'body').map((i) => ({
    ...i,
    loc: ['document', ...i.loc.slice(1)],
    msg: `Not a valid OSCAL 1.0.0 ${kind}: ${i.msg}`,
  }));
}
