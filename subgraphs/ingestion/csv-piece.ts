// The records of a piece of a plain CSV file (csv-copy-source.ts cut it at record ends and declined
// any file on which a simple reading could differ from csv-parse's: a stray quote, an empty line, a
// bare CR, an oversized record), each as its fields, as csv-parse gives them for that file. Much
// cheaper than csv-parse (issue 32: csv-parse alone read a tenth of COPY's rate): a piece without a
// quote is split by line and delimiter; one with quotes is read character by character.
import { CopyDeclined } from './csv-copy-source';

/**
 * Each record's fields, in order; a record with another field count than `width` is declined.
 * A generator, so that each record is let go once used (a piece's records held at once outlived
 * the young generation and made most of the path's garbage collection).
 */
export function* pieceRecords(piece: string, delimiter: string, width: number): Generator<string[]> {
  // csv-parse would take a CRLF file's record delimiter from its first line: left to it.
  if (piece.includes('\r')) throw new CopyDeclined('a carriage return');
  if (!piece.includes('"')) {
    for (let start = 0; start < piece.length;) {
      const end = piece.indexOf('\n', start);
      const fields = piece.slice(start, end).split(delimiter);
      if (fields.length !== width) throw new CopyDeclined('a record with another number of fields');
      yield fields;
      start = end + 1;
    }
    return;
  }
  yield* quotedRecords(piece, delimiter, width);
}

/** The same with quoted fields: a quote opens a field only at its start, and "" inside one is a quote. */
function* quotedRecords(piece: string, delimiter: string, width: number): Generator<string[]> {
  let fields: string[] = [];
  let i = 0;
  while (i < piece.length) {
    let value: string;
    if (piece.charCodeAt(i) === 0x22) {
      value = '';
      let from = i + 1;
      for (;;) {
        const q = piece.indexOf('"', from);
        if (q < 0) throw new CopyDeclined('the piece ends inside a quoted field');
        value += piece.slice(from, q);
        if (piece.charCodeAt(q + 1) === 0x22) {
          value += '"';
          from = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
    } else {
      let end = i;
      while (end < piece.length && piece[end] !== delimiter && piece.charCodeAt(end) !== 0x0a) end++;
      value = piece.slice(i, end);
      i = end;
    }
    fields.push(value);
    // After a field: a delimiter (another field follows) or the record's end.
    if (piece[i] === delimiter) {
      i++;
      continue;
    }
    if (piece.charCodeAt(i) !== 0x0a) throw new CopyDeclined('text after a closing quote');
    i++;
    if (fields.length !== width) throw new CopyDeclined('a record with another number of fields');
    yield fields;
    fields = [];
  }
}
