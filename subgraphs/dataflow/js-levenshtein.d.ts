// js-levenshtein ships no types: the edit distance between two strings.
declare module 'js-levenshtein' {
  function levenshtein(a: string, b: string): number;
  export = levenshtein;
}
