import { findAccountByEmail, normalizeEmail } from '../accounts/index.js';
import type { Config } from '../config/index.js';
import {
  createLicenseService,
  findLicense,
  LicenseRegistry,
  licenseProblems,
  licenseView,
  type LicenseInput,
} from '../licensing/index.js';
import { systemClock } from '../lib/clock.js';
import { openPublishingBus } from '../store/index.js';
import { commandLogger, openConfiguredDatabase } from './cli-database.js';
import { CliUsageError } from './cli-usage.js';

export interface LicenseFlags {
  email?: string;
  licensee?: string;
  attribution?: string;
  'white-label'?: boolean;
  'permitted-use'?: string;
  'term-end'?: string;
  host?: string;
  remove?: boolean;
  json?: boolean;
}

/** `salary-api account license|host …`: running instances hear of it through the bus. */
export async function licenseCommand(
  config: Config,
  args: string[],
  flags: LicenseFlags,
): Promise<number> {
  const [, verb] = args;
  if (flags.email === undefined) throw new CliUsageError(`account ${verb} needs --email`);
  const logger = commandLogger('warn');
  const db = await openConfiguredDatabase(config, logger, 'salary-api account');
  const changes = await openPublishingBus(config.redisUrl, config.redisKeyPrefix, logger);
  try {
    const account = await findAccountByEmail(db, normalizeEmail(flags.email));
    if (account === undefined) throw new CliUsageError(`there is no account ${flags.email}`);
    const registry = new LicenseRegistry({ db });
    const licenses = createLicenseService({
      db,
      clock: systemClock,
      registry,
      announce: () => changes.bus.publish('enterprise'),
    });
    const print = (value: unknown, text: string) =>
      console.log(flags.json === true ? JSON.stringify(value, null, 2) : text);
    if (verb === 'host') {
      if (flags.host === undefined) throw new CliUsageError('account host needs --host NAME');
      let host: string;
      try {
        host = await licenses.mapHost(
          flags.host,
          flags.remove === true ? null : account.id,
          account.id,
        );
      } catch (error) {
        throw new CliUsageError((error as Error).message);
      }
      print(
        { host, account: flags.remove === true ? null : account.id },
        flags.remove === true ? `${host} is no longer mapped` : `${host} → ${account.email}`,
      );
      return 0;
    }
    if (flags.remove === true) {
      const removed = await licenses.remove(account.id);
      print({ removed }, removed ? `licence of ${account.email} removed` : 'no licence recorded');
      return 0;
    }
    if (flags.licensee === undefined && flags.attribution === undefined) {
      const license = await findLicense(db, account.id);
      const view = license === undefined ? null : licenseView(license, systemClock.now());
      print(view, view === null ? 'no licence recorded' : JSON.stringify(view, null, 2));
      return 0;
    }
    if (flags.licensee === undefined || flags.attribution === undefined)
      throw new CliUsageError('account license needs --licensee NAME and --attribution TEXT');
    const input: LicenseInput = {
      licensee: flags.licensee.trim(),
      attribution: flags.attribution.trim(),
      whiteLabel: flags['white-label'] === true,
      permittedUse: flags['permitted-use'] ?? null,
      termEnd: flags['term-end'] ?? null,
    };
    const problems = licenseProblems(input);
    if (problems.length > 0) throw new CliUsageError(problems.join('; '));
    const row = await licenses.record(account.id, input);
    print(
      licenseView(row, systemClock.now()),
      `${account.email}: licensed to ${row.licensee}${row.whiteLabel ? ' (white-label)' : ''}`,
    );
    return 0;
  } finally {
    await changes.close();
    await db.close();
  }
}
