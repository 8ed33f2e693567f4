// Small helpers for tests that wait on something real (a relay delivering, a port freeing up),
// polling a condition rather than sleeping a guessed time.
import net from 'node:net';

/** A port nothing listens on right now (for a service that starts later on a known address). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((r) => server.close(r));
  return port;
}

/** Polls `check` every `everyMs` until it holds; fails naming `what` after `tries` polls. */
export async function until(check: () => Promise<boolean>, what: string, { tries = 1200, everyMs = 25 } = {}): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}
