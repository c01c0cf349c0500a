import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type CounterConfiguration,
  type GaugeConfiguration,
} from 'prom-client';

/** Records one answered request: status code and seconds taken. */
export type ObserveRequest = (status: number, seconds: number) => void;

/** Limiter outcomes: `fallback` is a decision taken in-process because Redis was away. */
export type LimitOutcome = 'admitted' | 'refused' | 'fallback';

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Latency buckets (seconds): the lookup answers in well under a millisecond in-process. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const ROUND_TRIP_BUCKETS = [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5];

/**
 * The process's Prometheus registry and the instruments the code records into. One per
 * server (no module-level registry), so tests and several apps in one process stay apart.
 * Labels are bounded: route templates, methods, status classes, plan ids, fixed outcomes.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly #requests: Counter<'route' | 'method' | 'status_class'>;
  readonly #latency: Histogram<'route' | 'method' | 'status_class'>;
  readonly #observers = new Map<string, ObserveRequest>();
  readonly #probes: (() => Promise<void>)[] = [];
  readonly #limits: Counter<'plan' | 'decision'>;
  readonly roundTrip: Histogram<'target'>;
  readonly roundTripErrors: Counter<'target'>;
  readonly webhookAttempts: Counter<'result'>;
  readonly exportRuns: Counter<'result' | 'destination'>;
  readonly exportRunSeconds: Histogram<'destination'>;
  readonly backups: Counter<'result'>;
  readonly lastBackup: Gauge;

  constructor(options: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    if (options.defaultMetrics !== false)
      collectDefaultMetrics({ register: this.registry, prefix: 'salary_api_' });
    this.#requests = new Counter({
      name: 'salary_api_http_requests_total',
      help: 'HTTP requests answered, by route template, method and status class.',
      labelNames: ['route', 'method', 'status_class'],
      registers,
    });
    this.#latency = new Histogram({
      name: 'salary_api_http_request_duration_seconds',
      help: 'Time from receiving a request to answering it, by route template, method and status class.',
      labelNames: ['route', 'method', 'status_class'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#limits = new Counter({
      name: 'salary_api_limiter_decisions_total',
      help: 'Rate-limit decisions by plan: admitted, refused, or fallback (decided in-process while Redis was away).',
      labelNames: ['plan', 'decision'],
      registers,
    });
    this.roundTrip = new Histogram({
      name: 'salary_api_dependency_round_trip_seconds',
      help: 'Round trip of a trivial command to the database or Redis, measured at each scrape.',
      labelNames: ['target'],
      buckets: ROUND_TRIP_BUCKETS,
      registers,
    });
    this.roundTripErrors = this.counter({
      name: 'salary_api_dependency_errors_total',
      help: 'Failed round trips to the database or Redis, measured at each scrape.',
      labelNames: ['target'],
    });
    this.webhookAttempts = this.counter({
      name: 'salary_api_webhook_attempts_total',
      help: 'Webhook delivery attempts made by this process, by result (ok, failed).',
      labelNames: ['result'],
    });
    this.exportRuns = this.counter({
      name: 'salary_api_export_runs_total',
      help: 'Export run attempts made by this process, by result (succeeded; retry: failed, queued again; failed: gave up) and destination (sftp, webhook).',
      labelNames: ['result', 'destination'],
    });
    this.exportRunSeconds = new Histogram({
      name: 'salary_api_export_run_seconds',
      help: 'Time an export run attempt took (render and delivery), by destination.',
      labelNames: ['destination'],
      buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800],
      registers: [this.registry],
    });
    this.backups = this.counter({
      name: 'salary_api_backups_total',
      help: 'Scheduled snapshots of the embedded database, by result (ok, failed).',
      labelNames: ['result'],
    });
    this.lastBackup = this.gauge({
      name: 'salary_api_backup_last_success_timestamp_seconds',
      help: 'When the last snapshot of the embedded database was completed (Unix time).',
    });
  }

  counter<L extends string>(config: Omit<CounterConfiguration<L>, 'registers'>): Counter<L> {
    return new Counter({ ...config, registers: [this.registry] });
  }

  gauge<L extends string>(config: Omit<GaugeConfiguration<L>, 'registers'>): Gauge<L> {
    return new Gauge({ ...config, registers: [this.registry] });
  }

  /**
   * The recorder of one route and method, its label children bound once per status class:
   * a request then costs one counter increment and one histogram observation, no label lookup.
   */
  requests(method: string, route: string): ObserveRequest {
    const m = METHODS.has(method) ? method : 'OTHER';
    const key = `${m} ${route}`;
    let observe = this.#observers.get(key);
    if (observe === undefined) {
      const counters = STATUS_CLASSES.map((c) =>
        this.#requests.labels({ route, method: m, status_class: c }),
      );
      const timers = STATUS_CLASSES.map((c) =>
        this.#latency.labels({ route, method: m, status_class: c }),
      );
      observe = (status, seconds) => {
        const i = Math.min(Math.max(Math.floor(status / 100) - 1, 0), 4);
        counters[i]!.inc();
        timers[i]!.observe(seconds);
      };
      this.#observers.set(key, observe);
    }
    return observe;
  }

  limitDecision(plan: string, decision: LimitOutcome): void {
    this.#limits.inc({ plan, decision });
  }

  /** One answered request, as the response observers see it (`http/responses.ts`). */
  readonly answered = (a: {
    method: string;
    route: string;
    status: number;
    elapsedMs: number;
  }): void => this.requests(a.method, a.route)(a.status, a.elapsedMs / 1000);

  /** One webhook delivery attempt and whether the endpoint accepted it. */
  readonly webhookAttempted = (ok: boolean): void => {
    this.webhookAttempts.inc({ result: ok ? 'ok' : 'failed' });
  };

  /** One export run attempt: its outcome, destination and seconds taken. */
  readonly exportAttempted = (
    result: 'succeeded' | 'retry' | 'failed',
    destination: 'sftp' | 'webhook',
    seconds: number,
  ): void => {
    this.exportRuns.inc({ result, destination });
    this.exportRunSeconds.observe({ destination }, seconds);
  };

  /** A round trip timed at each scrape into the round-trip histogram; failures counted. */
  addProbe(target: string, probe: () => Promise<unknown>): void {
    this.#probes.push(async () => {
      const end = this.roundTrip.startTimer({ target });
      try {
        await probe();
        end();
      } catch {
        this.roundTripErrors.inc({ target });
      }
    });
  }

  /** The exposition text, after this scrape's round trips. */
  async scrape(): Promise<string> {
    await Promise.all(this.#probes.map((probe) => probe()));
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
