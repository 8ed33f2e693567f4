// Reads one HTTP/1.1 response off a kept-alive vendor connection (vendor-socket.ts): the status,
// the headers, and the body framed by Content-Length, chunked transfer coding, or the end of the
// connection. Bytes arrive in pieces as the socket delivers them; `push` says when the response
// is whole. Only what the broker's vendor calls meet is handled (no upgrades, no pipelining).

/** Headers larger than this are not an answer from a language-model API. */
const MAX_HEAD_BYTES = 64 * 1024;
const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');

export class VendorResponseError extends Error {
  override name = 'VendorResponseError';
  readonly code = 'HPE_INVALID_RESPONSE';
}

export interface VendorResponse {
  status: number;
  /** Lower-case names; a repeated header's values joined with ', '. */
  headers: Record<string, string>;
  body: Buffer;
  /** Whether the connection may carry another request. */
  reusable: boolean;
  /** The server's `Keep-Alive: timeout=N`, in ms (undefined: none given). */
  keepAliveMs?: number;
}

type Framing = { kind: 'length'; remaining: number } | { kind: 'chunked' } | { kind: 'close' };

export class ResponseReader {
  private pending: Buffer = Buffer.alloc(0);
  private head?: { status: number; headers: Record<string, string>; reusable: boolean; framing: Framing };
  private readonly parts: Buffer[] = [];

  /** Feeds received bytes; the response once it is complete, else undefined. Throws on a malformed one. */
  push(chunk: Buffer): VendorResponse | undefined {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    while (!this.head) {
      const end = this.pending.indexOf(HEAD_END);
      if (end < 0) {
        if (this.pending.length > MAX_HEAD_BYTES) throw new VendorResponseError('response headers too large');
        return undefined;
      }
      const head = parseHead(this.pending.toString('latin1', 0, end));
      this.pending = this.pending.subarray(end + 4);
      // An interim answer (103 Early Hints): the real one follows on the same connection.
      if (head.status >= 100 && head.status < 200) continue;
      this.head = head;
    }
    return this.body();
  }

  /** The connection ended: the response if its body runs to the end of the connection. */
  end(): VendorResponse | undefined {
    if (this.head?.framing.kind !== 'close') return undefined;
    this.parts.push(this.pending);
    return this.done(false);
  }

  private body(): VendorResponse | undefined {
    const framing = this.head!.framing;
    if (framing.kind === 'close') {
      this.parts.push(this.pending);
      this.pending = Buffer.alloc(0);
      return undefined;
    }
    if (framing.kind === 'length') {
      if (this.pending.length < framing.remaining) return undefined;
      this.parts.push(this.pending.subarray(0, framing.remaining));
      // Bytes after the answer were never asked for: the connection is not trusted again.
      return this.done(this.pending.length === framing.remaining);
    }
    for (;;) {
      const eol = this.pending.indexOf(CRLF);
      if (eol < 0) return undefined;
      // Chunk extensions (`1a;name=value`) are ignored, as every client does.
      const size = parseInt(this.pending.toString('latin1', 0, eol), 16);
      if (!Number.isFinite(size) || size < 0) throw new VendorResponseError('bad chunk size');
      if (size === 0) {
        // The last chunk, then optional trailer fields, then an empty line.
        const rest = this.pending.subarray(eol + 2);
        if (rest.length >= 2 && rest[0] === 0x0d && rest[1] === 0x0a) return this.done(rest.length === 2);
        const trailerEnd = rest.indexOf(HEAD_END);
        return trailerEnd < 0 ? undefined : this.done(rest.length === trailerEnd + 4);
      }
      if (this.pending.length < eol + 2 + size + 2) return undefined;
      this.parts.push(this.pending.subarray(eol + 2, eol + 2 + size));
      this.pending = this.pending.subarray(eol + 2 + size + 2);
    }
  }

  private done(clean: boolean): VendorResponse {
    const { status, headers, reusable } = this.head!;
    const body = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    const hint = /(?:^|,)\s*timeout=(\d+)/i.exec(headers['keep-alive'] ?? '');
    return {
      status,
      headers,
      body,
      reusable: reusable && clean,
      keepAliveMs: hint ? Number(hint[1]) * 1000 : undefined,
    };
  }
}

function parseHead(text: string) {
  const lines = text.split('\r\n');
  const statusLine = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(lines[0]!);
  if (!statusLine) throw new VendorResponseError('not an HTTP/1.x response');
  const status = Number(statusLine[2]);
  const headers: Record<string, string> = {};
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new VendorResponseError('bad header line');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const connection = (headers.connection ?? '').toLowerCase();
  let reusable = statusLine[1] === '1' ? !connection.includes('close') : connection.includes('keep-alive');
  let framing: Framing;
  if (status === 204 || status === 304 || (status >= 100 && status < 200)) framing = { kind: 'length', remaining: 0 };
  else if (/(?:^|,)\s*chunked\s*$/i.test(headers['transfer-encoding'] ?? '')) framing = { kind: 'chunked' };
  else if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    if (!Number.isSafeInteger(length) || length < 0) throw new VendorResponseError('bad content-length');
    framing = { kind: 'length', remaining: length };
  } else {
    framing = { kind: 'close' };
    reusable = false;
  }
  return { status, headers, reusable, framing };
}
