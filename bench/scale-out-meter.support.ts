// What one scale-out scenario costs per append, in units that hold on a shared machine (issue 35
// item 2: "with the reason for what is left measured"). Rates on 2 shared cores are noise; CPU
// seconds per 1,000 appends per component, transactions per append and the wait events of the
// bench database's backends are not. Components: the ledger processes (each), nginx (master and
// workers), the PostgreSQL backends connected to the bench's database, this bench process
// (autocannon) and the NATS server (found by name; other helpers' traffic on it is counted too).
// Linux only (/proc).
import fs from 'node:fs';
import pg from 'pg';

const TICK_US = 10_000;

/** A process's user + system CPU in µs, or 0 once it is gone. */
function processCpu(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_US;
  } catch {
    return 0;
  }
}

function procStat(pid: string): { comm: string; ppid: number } | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { comm, ppid: Number(f[1]) };
  } catch {
    return undefined;
  }
}

/** The pid and its children (nginx's workers). */
function withChildren(pid: number): number[] {
  const kids = fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d) && procStat(d)?.ppid === pid)
    .map(Number);
  return [pid, ...kids];
}

function pidsNamed(comm: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d) && procStat(d)?.comm === comm)
    .map(Number);
}

/** Busy and total CPU time of the whole machine (/proc/stat), in ticks. */
function machineTicks(): { busy: number; total: number } {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const total = v.reduce((a, b) => a + b, 0);
  const idle = (v[3] ?? 0) + (v[4] ?? 0);
  return { busy: total - idle, total };
}

export interface MeterTargets {
  ledgerPids: number[];
  /** The ledger processes' ports (connections to them from nginx are counted). */
  ledgerPorts: number[];
  nginxPid?: number;
  /** Admin URL (any database of the cluster) and the bench database's name. */
  adminUrl: string;
  database: string;
  /** Messages stored so far in the deployment's JetStream stream (the notices), if it has one. */
  streamMessages?: () => Promise<number>;
}

/**
 * Closed TCP connections to these ports still in TIME_WAIT (/proc/net/tcp, state 06; the closer
 * keeps it 60 s): the balancer closing and reopening connections to the processes.
 */
function timeWaitTo(ports: number[]): number {
  const hex = new Set(ports.map((p) => p.toString(16).toUpperCase().padStart(4, '0')));
  let n = 0;
  for (const line of fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f[3] === '06' && hex.has(f[2]?.split(':')[1] ?? '')) n++;
  }
  return n;
}

/** Voluntary and involuntary context switches of a process's main thread. */
function switches(pid: number): { voluntary: number; involuntary: number } {
  try {
    const status = fs.readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return { voluntary: field('voluntary_ctxt_switches'), involuntary: field('nonvoluntary_ctxt_switches') };
  } catch {
    return { voluntary: 0, involuntary: 0 };
  }
}

export interface MeterReading {
  appends: number;
  /** CPU ms per 1,000 appends (= µs per append). */
  perThousandMs: Record<string, number>;
  ledgerSplit: number[];
  commitsPerAppend: number;
  noticesPerAppend: number;
  /** Connections to the ledger processes closed (TIME_WAIT) per 1,000 appends. */
  connectionsClosedPer1000: number;
  /** The ledger processes' main threads: sleeps (waits for I/O) and preemptions per append. */
  switchesPerAppend: { voluntary: number; involuntary: number };
  /** Rows inserted, updated or deleted per append, by table. */
  rowsPerAppend: Record<string, number>;
  /** Samples of the bench database's backends: how many were active, and what they waited on. */
  waits: Record<string, number>;
  samples: number;
  machineBusyShare: number;
}

/** Starts counting; `stop(appends)` answers the reading. Samples pg_stat_activity every 20 ms. */
export async function startMeter(t: MeterTargets): Promise<{ stop(appends: number): Promise<MeterReading> }> {
  const admin = new pg.Client({ connectionString: t.adminUrl });
  await admin.connect();
  const backends = (
    await admin.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [t.database],
    )
  ).rows.map((r) => r.pid);
  const commits = async () =>
    Number(
      (
        await admin.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1', [
          t.database,
        ])
      ).rows[0]?.n ?? 0,
    );
  // Row writes per table, from the bench database's own statistics (flushed about once a second).
  const benchUrl = new URL(t.adminUrl);
  benchUrl.pathname = `/${t.database}`;
  const benchDb = new pg.Client({ connectionString: benchUrl.toString() });
  await benchDb.connect();
  const tableWrites = async () =>
    Object.fromEntries(
      (
        await benchDb.query<{ relname: string; n: string }>(
          `SELECT relname, n_tup_ins + n_tup_upd + n_tup_del AS n FROM pg_stat_user_tables
            WHERE relname IN ('ledger_events', 'ledger_chain_heads', 'ledger_notice_marks')`,
        )
      ).rows.map((r) => [r.relname, Number(r.n)]),
    ) as Record<string, number>;
  const nginxPids = t.nginxPid ? withChildren(t.nginxPid) : [];
  const natsPids = pidsNamed('nats-server');
  const sum = (pids: number[]) => pids.reduce((s, p) => s + processCpu(p), 0);
  const before = {
    ledgers: t.ledgerPids.map(processCpu),
    nginx: sum(nginxPids),
    pg: sum(backends),
    nats: sum(natsPids),
    bench: process.cpuUsage(),
    commits: await commits(),
    notices: (await t.streamMessages?.()) ?? 0,
    switches: t.ledgerPids.map(switches),
    timeWait: timeWaitTo(t.ledgerPorts),
    tables: await tableWrites(),
    machine: machineTicks(),
  };
  const waits: Record<string, number> = {};
  let samples = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const rows = (
        await admin.query<{ state: string; w: string | null; q: string }>(
          `SELECT state, wait_event_type || ':' || wait_event AS w, left(regexp_replace(query, '\\s+', ' ', 'g'), 40) AS q
             FROM pg_stat_activity
            WHERE datname = $1 AND pid <> pg_backend_pid()`,
          [t.database],
        )
      ).rows;
      samples++;
      for (const r of rows) {
        if (r.state === 'idle') continue;
        // Idle in a transaction: the client holds it open; its last statement says which path.
        const key = r.state === 'active' ? `active ${r.w ?? 'on CPU'}` : `${r.state} after "${r.q}"`;
        waits[key] = (waits[key] ?? 0) + 1;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    async stop(appends: number) {
      sampling = false;
      await sampler;
      const machine = machineTicks();
      const bench = process.cpuUsage(before.bench);
      const ledgers = t.ledgerPids.map((p, i) => processCpu(p) - before.ledgers[i]!);
      const per = (us: number) => us / appends; // µs per append = ms per 1,000
      const perThousandMs: Record<string, number> = {
        ledger: per(ledgers.reduce((a, b) => a + b, 0)),
        nginx: per(sum(nginxPids) - before.nginx),
        postgres: per(sum(backends) - before.pg),
        nats: per(sum(natsPids) - before.nats),
        bench: per(bench.user + bench.system),
      };
      const c = (await commits()) - before.commits;
      const notices = ((await t.streamMessages?.()) ?? 0) - before.notices;
      const closed = timeWaitTo(t.ledgerPorts) - before.timeWait;
      const sw = t.ledgerPids.map(switches);
      const voluntary = sw.reduce((a, x, i) => a + x.voluntary - before.switches[i]!.voluntary, 0);
      const involuntary = sw.reduce((a, x, i) => a + x.involuntary - before.switches[i]!.involuntary, 0);
      await new Promise((r) => setTimeout(r, 1100)); // the backends' table statistics reach the view
      const tablesNow = await tableWrites();
      const rowsPerAppend = Object.fromEntries(
        Object.entries(tablesNow).map(([k, v]) => [k, (v - (before.tables[k] ?? 0)) / appends]),
      );
      await admin.end();
      await benchDb.end();
      return {
        appends,
        perThousandMs,
        ledgerSplit: ledgers.map(per),
        commitsPerAppend: c / appends,
        noticesPerAppend: notices / appends,
        connectionsClosedPer1000: (1000 * closed) / appends,
        switchesPerAppend: { voluntary: voluntary / appends, involuntary: involuntary / appends },
        rowsPerAppend,
        waits,
        samples,
        machineBusyShare: (machine.busy - before.machine.busy) / (machine.total - before.machine.total),
      };
    },
  };
}

export function formatReading(r: MeterReading): string {
  const ms = Object.entries(r.perThousandMs)
    .map(([k, v]) => `${k} ${v.toFixed(0)}`)
    .join(', ');
  const split = r.ledgerSplit.length > 1 ? ` (each ${r.ledgerSplit.map((v) => v.toFixed(0)).join(' + ')})` : '';
  const waits = Object.entries(r.waits)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([k, v]) => `${k} ${(v / r.samples).toFixed(2)}`)
    .join(', ');
  return (
    `    CPU ms per 1,000 appends: ${ms}${split}; ${(1 / r.commitsPerAppend).toFixed(1)} appends per commit;` +
    ` machine busy ${(r.machineBusyShare * 100).toFixed(0)}%\n` +
    `    per append: ${r.noticesPerAppend.toFixed(3)} notices, ${r.connectionsClosedPer1000.toFixed(1)} connections` +
    ` to the processes closed per 1,000, ledger main-thread context switches` +
    ` ${r.switchesPerAppend.voluntary.toFixed(2)} voluntary + ${r.switchesPerAppend.involuntary.toFixed(2)} preempted\n` +
    `    rows written per append: ${Object.entries(r.rowsPerAppend)
      .map(([k, v]) => `${k} ${v.toFixed(3)}`)
      .join(', ')}\n` +
    `    backends per sample (${r.samples}): ${waits || 'none'}`
  );
}
