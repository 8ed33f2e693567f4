// `npm run bench -- request-alloc [requests] [rounds] [--against <build>]`: bytes the server's
// thread allocates per request (issue 35), a figure a shared machine's load does not move, where
// CPU per request and rates do. Each measurement is a child process under `--trace-gc-nvp`
// (bench/request-alloc.support.ts: one server, the load generator in a worker); the bytes are the
// sum of `allocated=` over the main isolate's collections in the window, over the requests. Servers:
// the hello-world, this build's kernel + authentication + a verify-shaped handler and, with
// `--against`, another build's (its dist/ folder), alternated round by round.
import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Bytes allocated and scavenges in the window, from the first (main) isolate's GC lines. */
function allocation(output: string): { bytes: number; scavenges: number; failed: number } {
  let main: string | undefined;
  let inWindow = false;
  let bytes = 0;
  let scavenges = 0;
  let failed = 0;
  for (const line of output.split('\n')) {
    const isolate = /^\[\d+:(0x[0-9a-f]+)\]/.exec(line)?.[1];
    if (isolate && line.includes('allocated=')) main ??= isolate;
    if (line === 'MARK start') inWindow = true;
    else if (line === 'MARK end') inWindow = false;
    else if (line.startsWith('failed ')) failed = Number(line.slice(7));
    else if (inWindow && isolate === main) {
      const allocated = /allocated=(\d+)/.exec(line);
      if (allocated) {
        bytes += Number(allocated[1]);
        scavenges++;
      }
    }
  }
  return { bytes, scavenges, failed };
}

export async function run(args: string[]): Promise<void> {
  const against = args.indexOf('--against');
  const other = against >= 0 ? args.splice(against, 2)[1] : undefined;
  const requests = Number(args[0] ?? 60_000) || 60_000;
  const rounds = Number(args[1] ?? 2) || 2;
  const here = path.join(__dirname, '..');
  const servers: [string, string, string][] = [
    ['hello', here, 'hello'],
    ['kernel+auth', here, 'kernel+auth'],
    ...(other ? [['kernel+auth (other)', path.resolve(other), 'kernel+auth'] as [string, string, string]] : []),
  ];
  const support = path.join(__dirname, 'request-alloc.support.js');
  console.log(`request-alloc — ${requests} requests a window, ${rounds} rounds, load ${os.loadavg()[0]!.toFixed(2)}`);
  for (let round = 1; round <= rounds; round++) {
    for (const [name, build, server] of servers) {
      const { stdout } = await execFileAsync(
        process.execPath,
        ['--trace-gc-nvp', support, build, server, String(requests)],
        {
          maxBuffer: 256 * 1024 * 1024,
        },
      );
      const a = allocation(stdout);
      console.log(
        `round ${round} ${name.padEnd(20)} ${Math.round(a.bytes / requests)} B per request (${a.scavenges} scavenges${a.failed ? `, ${a.failed} failed` : ''}), load ${os.loadavg()[0]!.toFixed(2)}`,
      );
    }
  }
}
