// Check digits that tell a real identifier from a number of the same shape (issue 23): Luhn for
// payment cards, ISO 13616 mod-97 for IBANs (a number inside one is never a card), the NPI's Luhn
// over the 80840 prefix (a US provider id, not a phone), and the SSA's rules for SSNs.

/** The Luhn checksum every payment card number satisfies (and 90% of other numbers do not). */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = digits.length - 1, double = false; i >= 0; i--, double = !double) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** An IBAN (spaces allowed): two letters, two check digits, 11-30 letters or digits, mod 97 = 1. */
export function ibanValid(value: string): boolean {
  const s = value.replace(/ /g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(s)) return false;
  const moved = s.slice(4) + s.slice(0, 4);
  let rest = 0;
  for (let i = 0; i < moved.length; i++) {
    const c = moved.charCodeAt(i);
    // A letter is two digits (A = 10 ... Z = 35); the remainder is carried digit by digit.
    if (c >= 65) rest = (rest * 100 + (c - 55)) % 97;
    else rest = (rest * 10 + (c - 48)) % 97;
  }
  return rest === 1;
}

/** A National Provider Identifier: ten digits whose Luhn check covers the "80840" prefix. */
export function npiValid(digits: string): boolean {
  return digits.length === 10 && (digits[0] === '1' || digits[0] === '2') && luhnValid(`80840${digits}`);
}

/** Nine digits the SSA could have issued: not area 000, 666 or 900-999, group 00 or serial 0000. */
export function ssnValid(digits: string): boolean {
  if (digits.length !== 9) return false;
  const area = digits.slice(0, 3);
  return (
    area !== '000' && area !== '666' && area[0] !== '9' && digits.slice(3, 5) !== '00' && digits.slice(5) !== '0000'
  );
}
