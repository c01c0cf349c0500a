import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** CPU used during a run, in percent of one core (a 2-core machine has 200 %). */
export interface CpuShare {
  readonly server: number;
  /** This process (the bench; wrk runs as a child and counts as "other"). */
  readonly bench: number;
  /** Every other process on the machine: a busy neighbour makes the row suspect. */
  readonly other: number;
  readonly idle: number;
  /** CPU time the server used, in milliseconds: divided by its responses, its cost per request. */
  readonly serverMs: number;
}

interface Snapshot {
  /** performance.now() */
  readonly at: number;
  /** Ticks of all CPUs together, idle included. */
  readonly total: number;
  readonly idle: number;
  readonly server: number;
  readonly bench: number;
}

/** Ticks of the `cpu` line of /proc/stat: all CPUs, and their idle part (idle + iowait). */
function machineTicks(): { total: number; idle: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
  const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = fields.reduce((sum, n) => sum + n, 0);
  return { total, idle: (fields[3] ?? 0) + (fields[4] ?? 0) };
}

/** utime + stime of a process (all its threads), in ticks; 0 once it is gone. */
function processTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of proc(5); the slice starts at field 3 (state).
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

function snapshot(serverPid: number): Snapshot {
  return {
    at: performance.now(),
    ...machineTicks(),
    server: processTicks(serverPid),
    bench: processTicks(process.pid),
  };
}

/** Starts counting; the returned function stops and gives each party's share. */
export function startCpuMeter(serverPid: number): () => CpuShare {
  const start = snapshot(serverPid);
  return () => {
    const end = snapshot(serverPid);
    const ticksPerCore = (end.total - start.total) / cpus().length;
    const pct = (ticks: number): number => (ticksPerCore > 0 ? (100 * ticks) / ticksPerCore : 0);
    const server = end.server - start.server;
    const bench = end.bench - start.bench;
    const busy = end.total - start.total - (end.idle - start.idle);
    return {
      server: pct(server),
      bench: pct(bench),
      other: pct(Math.max(0, busy - server - bench)),
      idle: pct(end.idle - start.idle),
      serverMs: ticksPerCore > 0 ? (server / ticksPerCore) * (end.at - start.at) : 0,
    };
  };
}
