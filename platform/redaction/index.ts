// PII redaction: detectors per category, strategies per replacement, and the platform's default
// redactor (ssn, card, email, phone; mask keeping separators). One detector set serves every
// caller: the default redactor (validation's masking through the rule engine, request logging)
// and the AI broker's, which adds addresses, tenants' own RE2 patterns, and the hash, remove and
// tokenize strategies. The detectors are recognisers with checksums and context (issue 23; see
// docs/ai-broker.md, "Redaction").
import { addressDetector } from './address-detector';
import { cardDetector, emailDetector, phoneDetector, ssnDetector } from './pii-detectors';
import { BUILT_IN_STRATEGIES } from './redaction-strategies';
import { createRedactor, type RedactedText, type RedactionOptions } from './redactor';

export type PiiCategory = 'ssn' | 'card' | 'email' | 'phone';

/** Priority order: an email or SSN is claimed before its digits could look like a phone. */
export const BUILT_IN_DETECTORS = Object.freeze([emailDetector, ssnDetector, cardDetector, phoneDetector] as const);

export type ExtendedPiiCategory = PiiCategory | 'address';

/** The built-ins plus physical addresses, last: a number inside an address is claimed by the others first only when it is one of theirs. */
export const EXTENDED_DETECTORS = Object.freeze([...BUILT_IN_DETECTORS, addressDetector] as const);

export const defaultRedactor = createRedactor<PiiCategory>({
  detectors: BUILT_IN_DETECTORS,
  strategies: BUILT_IN_STRATEGIES,
});

export function redactText(text: string, options?: RedactionOptions<PiiCategory>): RedactedText<PiiCategory> {
  return defaultRedactor.redactText(text, options);
}

export function redactValue(value: unknown, options?: RedactionOptions<PiiCategory>): unknown {
  return defaultRedactor.redactValue(value, options);
}

export {
  createRedactor,
  type Redactor,
  type RedactorConfig,
  type RedactedText,
  type RedactionOptions,
} from './redactor';
export {
  regexDetector,
  luhnValid,
  ibanValid,
  npiValid,
  ssnValid,
  cardNetworkShape,
  cardDetector,
  emailDetector,
  phoneDetector,
  clearPhoneVerdicts,
  ssnDetector,
  type PiiDetector,
} from './pii-detectors';
export { compileContext, contextPolarity, type ContextWords, type CompiledContext } from './context';
export {
  BUILT_IN_STRATEGIES,
  STATELESS_STRATEGIES,
  hash,
  keyedHash,
  mask,
  remove,
  tokenizing,
  type RedactionStrategy,
} from './redaction-strategies';
export { addressDetector, ADDRESS } from './address-detector';
export {
  customPatternDetector,
  CustomPatternError,
  MAX_CUSTOM_PATTERN_LENGTH,
  type CustomPattern,
} from './custom-patterns';
