// The slice of google-libphonenumber (a build of Google's libphonenumber; it ships no types) that
// the phone detector uses.
declare module 'google-libphonenumber' {
  export interface PhoneNumber {
    getCountryCode(): number | undefined;
  }
  export class PhoneNumberUtil {
    static getInstance(): PhoneNumberUtil;
    /** Whether the whole of `text` matches `pattern` (replaced by a memoising version: phone-numbers.ts). */
    static matchesEntirely: (pattern: string | RegExp, text: string) => boolean;
    /** Throws on text that is no number at all. */
    parse(text: string, region: string): PhoneNumber;
    isValidNumber(number: PhoneNumber): boolean;
    isPossibleNumber(number: PhoneNumber): boolean;
    getRegionCodeForNumber(number: PhoneNumber): string | undefined;
  }
}
