// Graceful close without a per-request hook: Fastify stops accepting new requests and waits for
// in-flight ones, and a response sent meanwhile must ask its client to drop the keep-alive
// connection, or close() waits for idle sockets to time out. Node adds `Connection: close` (and
// ends the socket after the response) when `shouldKeepAlive` is false as headers are written, so
// the kernel's servers make their responses from this one class (Node's `ServerResponse` server
// option), which turns keep-alive off once its server's close has begun. Until some server closes
// that costs one comparison per response; an onSend hook cost a hook run and its closures on
// every request (issue 35).
import { ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';

const closingServers = new WeakSet<Server>();
let anyClosing = false;

export class KernelResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {}

// Node's writeHead(statusCode, reason?, headers?), called by Fastify and by Node itself for
// implicit headers; the same three arguments passed on (no rest array per response).
const writeHead = ServerResponse.prototype.writeHead as (this: ServerResponse, ...args: unknown[]) => ServerResponse;
KernelResponse.prototype.writeHead = function (
  this: ServerResponse,
  statusCode: unknown,
  reason: unknown,
  headers: unknown,
) {
  if (anyClosing && closingServers.has((this.socket as (Socket & { server?: Server }) | null)?.server as Server)) {
    this.shouldKeepAlive = false;
  }
  return writeHead.call(this, statusCode, reason, headers);
} as ServerResponse['writeHead'];

/** From now on, responses of `server` written after this ask their clients to close the connection. */
export function markClosing(server: Server): void {
  closingServers.add(server);
  anyClosing = true;
}
