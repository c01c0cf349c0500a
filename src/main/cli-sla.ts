import { hostname } from 'node:os';
import { findAccountByEmail, normalizeEmail } from '../accounts/index.js';
import { recordAudit } from '../audit/index.js';
import type { Config } from '../config/index.js';
import { systemClock } from '../lib/clock.js';
import { resolvePlans } from '../plans/index.js';
import {
  createSlaService,
  createStatusService,
  formatPercent,
  monthOf,
  parseBands,
  runProbe,
  setContractBands,
} from '../sla/index.js';
import { accountEventPublisher, serviceEventPublisher } from '../webhooks/index.js';
import { commandLogger, openConfiguredDatabase } from './cli-database.js';
import { CliUsageError } from './cli-usage.js';

export interface SlaFlags {
  json?: boolean;
  email?: string;
  title?: string;
  component?: string;
  status?: string;
  message?: string;
  start?: string;
  end?: string;
  url?: string;
  key?: string;
  name?: string;
  bands?: string;
  month?: string;
}

/** `salary-api probe | incident | maintenance | sla …` */
export async function slaCommand(config: Config, args: string[], flags: SlaFlags): Promise<number> {
  const [group, verb, arg] = args;
  const logger = commandLogger(group === 'probe' ? config.logLevel : 'warn');
  if (group === 'probe' && config.databaseUrl === undefined)
    throw new CliUsageError(
      'probe records its results in PostgreSQL (DATABASE_URL); the embedded database belongs to the server',
    );
  if (group === 'probe' && flags.url === undefined) throw new CliUsageError('probe needs --url');
  const db = await openConfiguredDatabase(config, logger, `salary-api ${group}`);
  const plans = resolvePlans(config.planOverrides);
  const clock = systemClock;
  const print = (value: unknown, text: string) =>
    console.log(flags.json === true ? JSON.stringify(value, null, 2) : text);
  const status = createStatusService({ db, clock, publish: serviceEventPublisher(plans, clock) });
  try {
    if (group === 'probe') {
      // PROBE_API_KEY keeps the key out of the process list.
      const apiKey = flags.key ?? process.env['PROBE_API_KEY'];
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
      await runProbe({
        db,
        clock,
        logger,
        baseUrl: flags.url!,
        prober: flags.name ?? hostname(),
        ...(apiKey === undefined ? {} : { apiKey }),
        signal: controller.signal,
        onResult: (r) =>
          logger.info(
            { ok: r.ok, error: r.error ?? undefined },
            r.ok ? 'probe ok' : 'probe failed',
          ),
      });
      return 0;
    }
    if (group === 'incident' && verb === 'open') {
      if (flags.title === undefined || flags.component === undefined)
        throw new CliUsageError('incident open needs --title and --component');
      const incident = await status.openIncident({
        title: flags.title,
        component: flags.component,
        ...(flags.status === undefined ? {} : { status: flags.status }),
        ...(flags.message === undefined ? {} : { message: flags.message }),
      });
      print(incident, incident.id);
      return 0;
    }
    if (group === 'incident' && (verb === 'update' || verb === 'resolve')) {
      if (arg === undefined) throw new CliUsageError(`incident ${verb} needs the incident id`);
      const next = verb === 'resolve' ? 'resolved' : flags.status;
      const message = flags.message ?? (verb === 'resolve' ? 'Resolved.' : undefined);
      if (next === undefined || message === undefined)
        throw new CliUsageError('incident update needs --status and --message');
      const incident = await status.updateIncident(arg, next, message);
      print(incident, `${incident.id} is ${incident.status}`);
      return 0;
    }
    if (group === 'maintenance' && verb === 'schedule') {
      if (flags.start === undefined || flags.end === undefined || flags.title === undefined)
        throw new CliUsageError('maintenance schedule needs --start, --end and --title');
      const m = await status.scheduleMaintenance({
        title: flags.title,
        start: flags.start,
        end: flags.end,
      });
      print(
        m,
        `${m.id} announced: ${m.starts_at} to ${m.ends_at}` +
          (m.excluded_from_sla
            ? ' (excluded from the SLA, up to 4 hours a month)'
            : ' (less than 5 days ahead: counted in the SLA)'),
      );
      return 0;
    }
    if (group === 'sla' && verb === 'close') {
      const sla = createSlaService({
        db,
        clock,
        plans,
        logger,
        publish: accountEventPublisher(plans, clock),
      });
      const result = await sla.closeMonth();
      print(
        result ?? null,
        result === undefined
          ? 'nothing to do: the previous month is not due yet or another instance is closing it'
          : `${result.month}: ${result.accounts} accounts measured, ${result.credits.length} credited`,
      );
      return 0;
    }
    if (group === 'sla' && (verb === 'bands' || verb === 'report')) {
      const account =
        flags.email === undefined
          ? undefined
          : await findAccountByEmail(db, normalizeEmail(flags.email));
      if (account === undefined)
        throw new CliUsageError(`sla ${verb} needs the --email of an existing account`);
      if (verb === 'bands') {
        if (account.plan !== 'enterprise')
          throw new CliUsageError('credit bands are set by an Enterprise contract');
        if (flags.bands === undefined) throw new CliUsageError('sla bands needs --bands');
        const bands = flags.bands === 'default' ? null : parseBands(flags.bands);
        if (typeof bands === 'string') throw new CliUsageError(`--bands: ${bands}`);
        const at = clock.now();
        await db.transaction(async (tx) => {
          await setContractBands(tx, account.id, bands, at);
          await recordAudit(tx, {
            accountId: account.id,
            actor: 'operator',
            action: 'sla.bands_changed',
            data: { bands },
            at: new Date(at),
          });
        });
        print(
          { account_id: account.id, bands },
          bands === null
            ? `${account.email}: the Enterprise plan's credit bands apply`
            : `${account.email}: credit bands ${bands.map((b) => `below ${b.below} % → ${b.percent} %`).join(', ')}`,
        );
        return 0;
      }
      const sla = createSlaService({
        db,
        clock,
        plans,
        logger,
        publish: accountEventPublisher(plans, clock),
      });
      const month = flags.month ?? monthOf(clock.now());
      const figures = await sla.monthFor(account, month);
      if (figures === undefined)
        throw new CliUsageError(`${account.email} has no SLA, or "${month}" is not YYYY-MM`);
      const m = figures.measurement;
      print(
        { month, target: figures.target, bands: figures.bands, ...m },
        `${account.email} ${month}: uptime ${formatPercent(m.uptime)} (target ${formatPercent(figures.target)}), ` +
          `${m.intervals} intervals, ${m.down.length} down, ${m.excluded.maintenance + m.excluded.ownReasons} excluded`,
      );
      return 0;
    }
    throw new CliUsageError(`unknown command "${args.join(' ')}"`);
  } finally {
    await db.close();
  }
}
