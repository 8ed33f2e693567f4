// Cursors no service ever hands out, for e2e checks that every paginated door answers them with
// 422 / BAD_USER_INPUT (never a 500). platform/pagination/cursor.ts is unit-tested in detail; these
// are the kinds that reach a real route.
import { MAX_CURSOR_LENGTH } from '../../platform/pagination/cursor';

const b64 = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64url');

/** `[label, cursor]` pairs; `kind` is the prefix the door under test expects (`u`, `seq`). */
export function garbageCursors(kind: 'u' | 'seq'): [string, string][] {
  const other = kind === 'u' ? 'seq:1' : 'u:alice';
  // Any non-empty clean text is a position for a text kind; only sequences have a number shape.
  const notSeq: [string, string][] =
    kind === 'seq'
      ? [
          ['negative', b64('seq:-1')],
          ['fraction', b64('seq:1.5')],
          ['beyond MAX_SAFE_INTEGER', b64(`seq:${'9'.repeat(30)}`)],
        ]
      : [];
  return [
    ['u:NUL (dToA)', 'dToA'],
    ['NUL inside the value', b64(`${kind}:1\u00002`)],
    ['not base64url', 'not a cursor!'],
    ['standard base64 with padding', `${b64(`${kind}:1`)}==`],
    ['another kind', b64(other)],
    ['no kind', b64('12')],
    ['empty value', b64(`${kind}:`)],
    ['invalid UTF-8', b64(Buffer.concat([Buffer.from(`${kind}:`), Buffer.from([0xff, 0xfe])]))],
    ['an encoded lone surrogate', b64(Buffer.concat([Buffer.from(`${kind}:`), Buffer.from([0xed, 0xa0, 0x80])]))],
    ['over-long', 'A'.repeat(MAX_CURSOR_LENGTH + 4)],
    ...notSeq,
  ];
}
