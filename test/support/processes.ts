// Services as real child processes (launcher/start-one.ts through test/support/run-ts.js), for
// suites that run several processes, kill them, or watch them stop. Every process started here is
// tracked, so `stopAll` (in afterAll) ends each one even when a test failed half-way.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { until } from './waiting';

const ROOT = path.join(__dirname, '../..');

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  url: string;
  /** Everything the process wrote (stdout and stderr). */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const started = new Set<ServiceProcess>();

/** Starts `npm run service -- <name>` as the tests run it (TypeScript, no build) on `port`; resolves once /readyz answers 200. */
export async function startService(
  name: string,
  port: number,
  env: NodeJS.ProcessEnv,
  { ready = '/readyz' } = {},
): Promise<ServiceProcess> {
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'test/support/run-ts.js'), path.join(ROOT, 'launcher/start-one.ts'), name],
    {
      cwd: ROOT,
      env: { ...env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  let gone = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      gone = true;
      resolve({ code, signal });
    }),
  );
  const proc: ServiceProcess = { name, child, url: `http://127.0.0.1:${port}`, output: () => output, exited };
  started.add(proc);
  await until(
    async () => {
      if (gone) throw new Error(`${name} exited during start:\n${output}`);
      return fetch(`${proc.url}${ready}`).then(
        (r) => r.ok,
        () => false,
      );
    },
    `${name} on :${port} to be ready`,
    { tries: 1800, everyMs: 100 },
  );
  return proc;
}

/** SIGKILLs every process still running (afterAll). */
export async function stopAll(): Promise<void> {
  const waits: Promise<unknown>[] = [];
  for (const p of started) {
    if (p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill('SIGKILL');
      waits.push(p.exited);
    }
  }
  await Promise.all(waits);
  started.clear();
}

/** The environment of a test's child process: the parent's minus the settings a test chooses itself. */
export function childEnv(overrides: NodeJS.ProcessEnv, drop: string[] = []): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'INFO', NODE_ENV: 'test' };
  for (const name of drop) delete env[name];
  return { ...env, ...overrides };
}
