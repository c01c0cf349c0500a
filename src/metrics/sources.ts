import type { Metrics } from './metrics.js';

/**
 * What the server reports at each scrape, read through callbacks so this folder imports no
 * feature. Each is optional: a process without Redis has no Redis probe.
 */
export interface MetricSources {
  /** Active data release version, or undefined before one is loaded. */
  release?: () => string | undefined;
  /** Entries in the in-memory credential cache and refreshes done so far. */
  credentials?: () => { size: number; refreshes: number };
  /** Pending webhook deliveries and the seconds the oldest due one has been waiting. */
  outbox?: () => Promise<{ depth: number; oldestDueSeconds: number }>;
  /** Milliseconds since usage counts were last written to the database. */
  usageFlushLagMs?: () => number;
  database?: () => Promise<unknown>;
  redis?: () => Promise<unknown>;
}

/** Registers the gauges read at scrape time and the dependency probes. */
export function registerSources(metrics: Metrics, sources: MetricSources): void {
  const { release, credentials, outbox, usageFlushLagMs, database, redis } = sources;
  if (release !== undefined) {
    metrics.gauge({
      name: 'salary_api_release_info',
      help: 'The active data release (always 1; the version is the label).',
      labelNames: ['version'],
      collect() {
        this.reset();
        const version = release();
        if (version !== undefined) this.set({ version }, 1);
      },
    });
  }
  if (credentials !== undefined) {
    metrics.gauge({
      name: 'salary_api_credential_cache_entries',
      help: 'Keys, sessions and accounts held by the in-memory credential cache.',
      collect() {
        this.set(credentials().size);
      },
    });
    metrics.gauge({
      name: 'salary_api_credential_cache_refreshes',
      help: 'Reads of changed credentials from the database since start (a counter in value).',
      collect() {
        this.set(credentials().refreshes);
      },
    });
  }
  if (usageFlushLagMs !== undefined) {
    metrics.gauge({
      name: 'salary_api_usage_flush_lag_seconds',
      help: 'Seconds since usage counts were last written to the database.',
      collect() {
        this.set(usageFlushLagMs() / 1000);
      },
    });
  }
  if (outbox !== undefined) {
    let last = { depth: 0, oldestDueSeconds: 0 };
    const read = async () => {
      try {
        last = await outbox();
      } catch {
        metrics.roundTripErrors.inc({ target: 'database' });
      }
    };
    metrics.gauge({
      name: 'salary_api_webhook_outbox_depth',
      help: 'Webhook deliveries pending (not yet succeeded or given up).',
      async collect() {
        await read();
        this.set(last.depth);
      },
    });
    metrics.gauge({
      name: 'salary_api_webhook_oldest_due_seconds',
      help: 'Seconds the oldest due webhook delivery has been waiting; 0 when none is due.',
      collect() {
        this.set(last.oldestDueSeconds);
      },
    });
  }
  if (database !== undefined) metrics.addProbe('database', database);
  if (redis !== undefined) metrics.addProbe('redis', redis);
}
