// csv-piece.ts reads a plain CSV's records as csv-parse (the record path) reads them, or declines.
import { parse } from 'csv-parse/sync';
import { CopyDeclined } from '../../../subgraphs/ingestion/csv-copy-source';
import { pieceRecords } from '../../../subgraphs/ingestion/csv-piece';

const read = (piece: string, delimiter = ',', width = 3) => [...pieceRecords(piece, delimiter, width)];

describe('pieceRecords', () => {
  it.each([
    ['plain fields', 'a,b,c\n1,2,3\n'],
    ['empty fields and a trailing delimiter', 'a,,\n,,c\n'],
    ['quoted fields with delimiters, quotes and line ends', '"a,1","say ""hi""","x\ny"\n"",b,"c"\n'],
    ['spaces kept', ' a , b ,c \n'],
    ['unicode', 'ünï,cödé,✓\n'],
  ])('%s: the fields csv-parse gives', (_name, piece) => {
    expect(read(piece)).toEqual(parse(piece, { relax_column_count: false }));
  });

  it('another delimiter', () => {
    const piece = 'a;"b;c";d\n1;2;3\n';
    expect(read(piece, ';')).toEqual(parse(piece, { delimiter: ';' }));
  });

  it.each([
    ['a short record', 'a,b,c\n1,2\n'],
    ['a long record', 'a,b,c,d\n'],
    ['a carriage return', 'a,b,c\r\n'],
    ['text after a closing quote', '"a"x,b,c\n'],
  ])('declines %s', (_name, piece) => {
    expect(() => read(piece)).toThrow(CopyDeclined);
  });
});
