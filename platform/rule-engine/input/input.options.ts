import { DEFAULT_RULE_ENGINE_LIMITS } from '../rule-engine.limits';

export type InputFormat = 'json' | 'csv' | 'xml';

export interface InputOptions {
  /** Records in one payload (the engine's maxRecords). */
  maxRecords: number;
  /** XML element nesting (fast-xml-parser's maxNestedTags). */
  maxXmlDepth: number;
  /** XML: the element name whose occurrences under the root are the records, when the default
   *  (the root's one repeated child element, else the root) does not fit, e.g. a single <order>. */
  recordElement?: string;
}

export const DEFAULT_INPUT_OPTIONS: InputOptions = Object.freeze({
  maxRecords: DEFAULT_RULE_ENGINE_LIMITS.maxRecords,
  maxXmlDepth: 64,
});
