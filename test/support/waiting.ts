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
export async function until(check: () => boolean | Promise<boolean>, what: string, { tries = 1200, everyMs = 25 } = {}): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * Runs `act` (again) until `check` holds, polling `check` in between: for a subscription whose
 * server never acknowledges the subscribe (graphql-ws has no such message), a delivery is the
 * only proof it is live, so the test repeats a harmless append until the first one arrives.
 * `pollsPerAct` only paces the repeats; nothing depends on how long they take.
 */
export async function repeatUntil(act: () => Promise<unknown>, check: () => boolean | Promise<boolean>, what: string, { acts = 120, pollsPerAct = 10, everyMs = 25 } = {}): Promise<void> {
  for (let i = 0; i < acts; i++) {
    await act();
    for (let p = 0; p < pollsPerAct; p++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }
  throw new Error(`timed out waiting for ${what}`);
}
