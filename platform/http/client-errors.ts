// Answers Node and Fastify give before any route runs, in the spec's `{"detail": ...}` shape:
// - Node's HTTP parser refuses a request line plus headers above `maxHeaderSize` (16 KiB by
//   default; the URL counts) and would answer a bare 431 itself. Fastify's clientErrorHandler
//   takes over: 431 for oversized headers, 414 when it is the request target that is too long
//   (seen in the bytes that overflowed), 408 for a request timeout, 400 otherwise.
// - Node has no URL length limit of its own below that, so a URL longer than HTTP_MAX_URL_LENGTH
//   gets 414 from an onRequest hook, before authentication or any handler.
// - Fastify's own early refusals (a path parameter over `maxParamLength`: 414; a malformed URL:
//   400) arrive through `frameworkErrors`.
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyReply, FastifyRequest } from 'fastify';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  414: 'URI Too Long',
  431: 'Request Header Fields Too Large',
};
export const URL_TOO_LONG = 'Request URL too long';

const answered = new WeakSet<Socket>();

/** The request target of the request line at the start of `packet`, as far as it reaches. */
function requestTargetLength(packet: Buffer | undefined): number {
  if (!packet) return 0;
  const firstSpace = packet.indexOf(0x20);
  // A method is a short token; anything else means the packet starts mid-request.
  if (firstSpace <= 0 || firstSpace > 16) return 0;
  const secondSpace = packet.indexOf(0x20, firstSpace + 1);
  const lineEnd = packet.indexOf(0x0d, firstSpace + 1);
  const end = [secondSpace, lineEnd, packet.length].filter((i) => i > firstSpace).reduce((a, b) => Math.min(a, b));
  return end - firstSpace - 1;
}

export function clientErrorHandler(maxUrlLength: number) {
  return function onClientError(err: ConnectionError, socket: Socket): void {
    // A reset connection has nobody to answer; one answer per connection (the parser may report
    // the rest of an oversized request again).
    if (err.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return;
    answered.add(socket);
    let status = 400;
    let detail = 'Bad Request';
    if (err.code === 'HPE_HEADER_OVERFLOW') {
      // Fastify's type says { type, data }; at runtime Node hands the Buffer being parsed.
      if (requestTargetLength((err as unknown as { rawPacket?: Buffer }).rawPacket) > maxUrlLength) {
        status = 414;
        detail = URL_TOO_LONG;
      } else {
        status = 431;
        detail = 'Request header fields too large';
      }
    } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      status = 408;
      detail = 'Request timeout';
    }
    if (socket.writable) {
      const body = JSON.stringify({ detail });
      socket.end(
        `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    // end() lets the answer reach the client before the connection closes (destroying at once
    // can reset it while the client is still sending); a client that keeps sending is cut off.
    setTimeout(() => socket.destroy(), 1000).unref();
  };
}

export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('X-Correlation-ID', request.id);
  switch (error.code) {
    case 'FST_ERR_MAX_PARAM_LENGTH':
      reply.code(414).send({ detail: URL_TOO_LONG });
      return;
    case 'FST_ERR_BAD_URL':
      reply.code(400).send({ detail: 'Malformed URL' });
      return;
    default:
      request.log.error({ err: error }, 'framework error');
      reply.code(500).send({ detail: 'Internal Server Error' });
  }
}

/** A request target longer than HTTP_MAX_URL_LENGTH (the kernel's onRequest hook answers 414). */
export function urlTooLong(request: FastifyRequest, maxUrlLength: number): boolean {
  const url = request.raw.url;
  return url !== undefined && url.length > maxUrlLength;
}
