// A real webhook receiver for the webhook tests: node:http on 127.0.0.1, recording every request
// and answering through a handler the test swaps. Not a test file (no .test.ts).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

export type Answer = (req: Received, res: http.ServerResponse) => void;

export interface Receiver {
  url(path?: string): string;
  received: Received[];
  /** Requests to `path` whose answer has not been sent yet (hanging receivers). */
  open(path: string): number;
  /** The most requests to `path` ever open at once. */
  maxOpen(path: string): number;
  answer: Answer;
  close(): Promise<void>;
}

export async function startReceiver(answer: Answer = (_req, res) => res.writeHead(204).end()): Promise<Receiver> {
  const open = new Map<string, number>();
  const maxOpen = new Map<string, number>();
  const receiver: Receiver = {
    url: (path = '/hook') => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    received: [],
    open: (path) => open.get(path) ?? 0,
    maxOpen: (path) => maxOpen.get(path) ?? 0,
    answer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      open.set(path, (open.get(path) ?? 0) + 1);
      maxOpen.set(path, Math.max(maxOpen.get(path) ?? 0, open.get(path)!));
      // The request is over when the answer is sent or the client hangs up (its socket ends:
      // node keeps a half-open socket waiting for our answer, so `close` alone would come late).
      let over = false;
      const end = () => {
        if (!over) open.set(path, open.get(path)! - 1);
        over = true;
      };
      res.on('close', end);
      req.socket.once('end', end);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      const got = { path, headers, body: Buffer.concat(chunks).toString('utf8') };
      receiver.received.push(got);
      receiver.answer(got, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return receiver;
}
