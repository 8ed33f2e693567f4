// Context words, as Presidio uses them: a word near a candidate raises or lowers its score
// ("SSN 123456789" is an SSN, "routing number 021000021" is not; "tracking 4111..." is no card).
// Only the closest word counts (polarity of the nearest one before the value, then after it), so
// "order paid with card 4111 ..." is a card and "card ... order 4111 ..." is not. Windows are
// small and fixed: the cost per candidate is constant, and a streamed answer (held back 160
// characters) sees the same context as the whole text. Matching is on the lower-cased window
// with Latin letters spelled out (no Unicode-property classes: several times faster in V8).

export interface ContextWords {
  /** Words that make the candidate more likely what it looks like. Lower-case, a regex source. */
  readonly positive: string;
  /** Words that make it something else (an order, a tracking number...). */
  readonly negative: string;
}

export interface CompiledContext {
  readonly before: number;
  readonly after: number;
  readonly re: RegExp;
}

/** Lower-case letters, Latin-1 included: a context word must not be part of a longer word. */
export const LETTER = 'a-zß-öø-ÿ';

export function compileContext(words: ContextWords, before = 48, after = 24): CompiledContext {
  // Groups 1 and 2 tell which list matched.
  return {
    before,
    after,
    re: new RegExp(`(?<![${LETTER}0-9])(?:(${words.positive})|(${words.negative}))(?![${LETTER}])`, 'g'),
  };
}

/** +1 when the closest context word is positive, -1 when negative, 0 when there is none. */
export function contextPolarity(text: string, start: number, end: number, ctx: CompiledContext): -1 | 0 | 1 {
  const re = ctx.re; // shared: always used from lastIndex 0 to the end, single-threaded
  const before = text.slice(Math.max(0, start - ctx.before), start).toLowerCase();
  let polarity: -1 | 0 | 1 = 0;
  re.lastIndex = 0;
  for (let m = re.exec(before); m !== null; m = re.exec(before)) polarity = m[1] !== undefined ? 1 : -1;
  if (polarity !== 0 || ctx.after === 0) return polarity;
  const after = text.slice(end, end + ctx.after).toLowerCase();
  re.lastIndex = 0;
  const m = re.exec(after);
  re.lastIndex = 0;
  return m === null ? 0 : m[1] !== undefined ? 1 : -1;
}
