// What replaces a detected span. Strategies are named so callers choose one per call; the AI
// broker adds hash, tokenize and remove here without touching the detectors.

export type RedactionStrategy = (match: string, category: string) => string;

/** Every letter and digit becomes '*', separators stay: 123-45-6789 -> ***-**-****. */
export const mask: RedactionStrategy = (match) => match.replace(/[\p{L}\p{N}]/gu, '*');

export const BUILT_IN_STRATEGIES: Readonly<Record<string, RedactionStrategy>> = Object.freeze({ mask });
