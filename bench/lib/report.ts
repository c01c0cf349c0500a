import { median, serverCpuPerRequestUs, type Measurement } from './load.js';

const MIB = 1024 * 1024;

interface Column {
  readonly title: string;
  readonly cell: (m: Measurement) => string;
  readonly alignLeft?: boolean;
}

/**
 * Other processes used more than this share of one core: the row is marked as disturbed. wrk
 * counts as "other" (up to a core's worth when the server is fast), so the mark means more
 * than wrk alone could use.
 */
export const NOISY_OTHER_CPU_PCT = 115;

export function isNoisy(m: Measurement): boolean {
  return m.cpu.other > NOISY_OTHER_CPU_PCT;
}

/**
 * hello-world's fastest round beside a paired row over its slowest: above this, the machine's
 * own speed changed during the row (another tenant on the host, the CPU's clock), which no
 * process on this machine shows as CPU use, and the row's ratio is not to be trusted.
 */
export const UNSTEADY_HELLO_SPREAD = 1.25;

export function isUnsteady(m: Measurement): boolean {
  const rounds = m.helloRounds ?? [];
  return rounds.length > 1 && Math.max(...rounds) / Math.min(...rounds) > UNSTEADY_HELLO_SPREAD;
}

/** Ours to hello-world in requests per second: the median of the paired rounds when paired. */
export function ratio(m: Measurement, baseline: Measurement): number {
  if (m.ratios !== undefined && m.ratios.length > 0) return median(m.ratios);
  return m.requestsPerSecond.mean / baseline.requestsPerSecond.mean;
}

function columns(baseline: Measurement): readonly Column[] {
  return [
    { title: 'scenario', cell: (m) => m.scenario, alignLeft: true },
    { title: 'req/s', cell: (m) => m.requestsPerSecond.mean.toFixed(0) },
    { title: '± sd', cell: (m) => m.requestsPerSecond.stddev.toFixed(0) },
    { title: 'p50 ms', cell: (m) => m.latencyMs.p50.toFixed(2) },
    { title: 'p99 ms', cell: (m) => m.latencyMs.p99.toFixed(2) },
    {
      title: 'p99 median (ref)',
      cell: (m) =>
        m.p99Rounds === undefined || m.referenceP99Rounds === undefined
          ? ''
          : `${median(m.p99Rounds).toFixed(1)} (${median(m.referenceP99Rounds).toFixed(1)})`,
    },
    { title: 'mean ms', cell: (m) => m.latencyMs.mean.toFixed(2) },
    {
      title: 'hello req/s',
      cell: (m) => (m.helloRps ?? baseline.requestsPerSecond.mean).toFixed(0),
    },
    { title: 'vs hello', cell: (m) => ratio(m, baseline).toFixed(2) },
    {
      title: 'rounds',
      cell: (m) =>
        `${m.ratios?.map((r) => r.toFixed(2)).join(' ') ?? ''}${isUnsteady(m) ? ' ~' : ''}`,
    },
    {
      title: 'by CPU',
      cell: (m) =>
        m.cpuRatios === undefined || m.cpuRatios.length === 0 ? '' : median(m.cpuRatios).toFixed(2),
    },
    { title: 'max RSS MiB', cell: (m) => (m.maxRssBytes / MIB).toFixed(1) },
    { title: 'srv CPU µs/req', cell: (m) => serverCpuPerRequestUs(m).toFixed(1) },
    { title: 'CPU% srv', cell: (m) => m.cpu.server.toFixed(0) },
    { title: 'bench', cell: (m) => m.cpu.bench.toFixed(0) },
    { title: 'other', cell: (m) => `${m.cpu.other.toFixed(0)}${isNoisy(m) ? ' !' : ''}` },
  ];
}

/** A plain-text table, one row per measurement; `baseline` is the hello-world run. */
export function formatTable(rows: readonly Measurement[], baseline: Measurement): string {
  const cols = columns(baseline);
  const cells = rows.map((row) => cols.map((c) => c.cell(row)));
  const widths = cols.map((c, i) =>
    Math.max(c.title.length, ...cells.map((r) => r[i]?.length ?? 0)),
  );
  const line = (values: readonly string[]): string =>
    values
      .map((v, i) =>
        cols[i]?.alignLeft === true ? v.padEnd(widths[i] ?? 0) : v.padStart(widths[i] ?? 0),
      )
      .join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const table = [line(cols.map((c) => c.title)), rule, ...cells.map(line)].join('\n');
  const notes: string[] = [];
  if (rows.some(isNoisy))
    notes.push(
      `! other processes used over ${NOISY_OTHER_CPU_PCT} % of a core during this row: ` +
        'its numbers are disturbed; rerun on a quiet machine.',
    );
  if (rows.some(isUnsteady))
    notes.push(
      `~ hello-world's own rounds beside this row differed by more than ` +
        `${Math.round((UNSTEADY_HELLO_SPREAD - 1) * 100)} %: the machine's speed changed during ` +
        'the row, and its ratio is not to be trusted; rerun on a steadier machine or with more --rounds.',
    );
  return [table, ...notes].join('\n\n');
}
