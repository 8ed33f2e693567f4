// Whether a GET /graphql comes from a browser: the same decision Apollo Server makes before it
// serves a landing page (its prefersHTML, done with the `negotiator` package), so API clients that
// ask for JSON, or for anything (`*/*`), still get GraphQL. text/html must be the best of the media
// types Apollo answers with, by Negotiator's rules: quality first, then how specifically the Accept
// range names the type, then the range's position in the header, then the order listed below.
// Media type parameters other than q are ignored (Apollo's multipart variants differ only by them).

const CANDIDATES = ['application/json', 'application/graphql-response+json', 'multipart/mixed', 'text/html'] as const;

interface Range {
  type: string;
  subtype: string;
  q: number;
  /** Position in the Accept header. */
  o: number;
}

interface Priority {
  q: number;
  s: number;
  o: number;
  i: number;
}

function parseAccept(accept: string): Range[] {
  const ranges: Range[] = [];
  accept.split(',').forEach((part, o) => {
    const [mediaType = '', ...params] = part.split(';').map((p) => p.trim());
    const [type, subtype] = mediaType.toLowerCase().split('/');
    if (!type || !subtype) return;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split('=').map((p) => p.trim());
      if (key?.toLowerCase() === 'q' && value !== undefined) q = Number.parseFloat(value);
    }
    if (Number.isFinite(q)) ranges.push({ type, subtype, q, o });
  });
  return ranges;
}

function priorityOf(candidate: string, i: number, ranges: readonly Range[]): Priority {
  const [type, subtype] = candidate.split('/');
  let best: Priority = { q: 0, s: -1, o: -1, i };
  for (const range of ranges) {
    let s = 0;
    if (range.type === type) s |= 4;
    else if (range.type !== '*') continue;
    if (range.subtype === subtype) s |= 2;
    else if (range.subtype !== '*') continue;
    if (s > best.s || (s === best.s && (range.q > best.q || (range.q === best.q && range.o > best.o))))
      best = { q: range.q, s, o: range.o, i };
  }
  return best;
}

/** True for a GET whose Accept header prefers text/html to every GraphQL response type. */
export function prefersHtml(method: string, accept: string | undefined): boolean {
  if (method !== 'GET' || !accept) return false;
  const ranges = parseAccept(accept);
  const ranked = CANDIDATES.map((c, i) => priorityOf(c, i, ranges))
    .filter((p) => p.q > 0)
    .sort((a, b) => b.q - a.q || b.s - a.s || a.o - b.o || a.i - b.i);
  return ranked[0] !== undefined && CANDIDATES[ranked[0].i] === 'text/html';
}
