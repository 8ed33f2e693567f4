// Small helpers for tests that wait on something real (a relay delivering, a port freeing up),
// polling a condition rather than sleeping a guessed time.
import net from 'node:net';

// Ports for services a test starts later on a known address. Not the kernel's `listen(0)`: that
// hands out an ephemeral port (32768-60999 here), which an outgoing connection or another
// `listen(0)` may take before the service binds it (CI saw EADDRINUSE that way). Instead each jest
// worker takes ports from its own block below the ephemeral range, starting at a random offset
// (two jest processes on one machine rarely meet), and a port is handed out only if it can be
// bound right now.
const PORT_BLOCK = 500;
const FIRST_PORT = 21000;
const BLOCKS = 20; // 21000-30999: below the ephemeral range, above the documented ports (80xx, 81xx)
let nextInBlock = -1;

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port nothing listens on right now (for a service that starts later on a known address). */
export async function freePort(): Promise<number> {
  const worker = Number(process.env.JEST_WORKER_ID ?? '1');
  const base = FIRST_PORT + ((Number.isInteger(worker) && worker > 0 ? worker - 1 : 0) % BLOCKS) * PORT_BLOCK;
  if (nextInBlock < 0) nextInBlock = Math.floor(Math.random() * PORT_BLOCK);
  for (let i = 0; i < PORT_BLOCK; i++) {
    const port = base + (nextInBlock++ % PORT_BLOCK);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${base}-${base + PORT_BLOCK - 1}`);
}

/** Polls `check` every `everyMs` until it holds; fails naming `what` after `tries` polls. */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  { tries = 1200, everyMs = 25 } = {},
): Promise<void> {
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
export async function repeatUntil(
  act: () => Promise<unknown>,
  check: () => boolean | Promise<boolean>,
  what: string,
  { acts = 120, pollsPerAct = 10, everyMs = 25 } = {},
): Promise<void> {
  for (let i = 0; i < acts; i++) {
    await act();
    for (let p = 0; p < pollsPerAct; p++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }
  throw new Error(`timed out waiting for ${what}`);
}
