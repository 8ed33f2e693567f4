// Google's libphonenumber (google-libphonenumber), with one change of speed, none of behaviour:
// its JavaScript build compiles a metadata pattern (some are kilobytes long) with `new RegExp`
// on every test, which made validity checks the largest cost of redaction. `matchesEntirely` is
// replaced by the same test over patterns compiled once (a few thousand at most: the metadata's).
// Verdicts are also remembered per region and number, most recent first, in a bounded map: the
// same numbers recur (a support line, a tenant's own offices).
import { PhoneNumberUtil } from 'google-libphonenumber';

const compiled = new Map<string, RegExp>();
PhoneNumberUtil.matchesEntirely = (pattern: string | RegExp, text: string): boolean => {
  const source = typeof pattern === 'string' ? pattern : pattern.source;
  let re = compiled.get(source);
  if (re === undefined) {
    re = new RegExp(`^(?:${source})$`, 'i');
    compiled.set(source, re);
  }
  const m = text.match(re);
  return m !== null && m[0].length === text.length;
};

const util = PhoneNumberUtil.getInstance();

export type Verdict = 'valid' | 'possible' | 'no';

const VERDICT_CACHE_SIZE = 4096;
const verdicts = new Map<string, Verdict>();

/** Forgets remembered verdicts (the bench measures with a cold cache). */
export function clearPhoneVerdicts(): void {
  verdicts.clear();
}

/** libphonenumber's verdict on `number` read in `region` ('ZZ' when it starts with +). */
export function phoneVerdict(number: string, region: string): Verdict {
  const key = `${region}:${number}`;
  const known = verdicts.get(key);
  if (known !== undefined) return known;
  let verdict: Verdict;
  try {
    const n = util.parse(number, region);
    verdict = util.isValidNumber(n) ? 'valid' : util.isPossibleNumber(n) ? 'possible' : 'no';
  } catch {
    verdict = 'no';
  }
  if (verdicts.size >= VERDICT_CACHE_SIZE) verdicts.delete(verdicts.keys().next().value!);
  verdicts.set(key, verdict);
  return verdict;
}
