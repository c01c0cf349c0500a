import { resolveSecretKey, type Config } from '../config/index.js';
import { systemClock } from '../lib/clock.js';
import { createSecretBox } from '../lib/secret-box.js';
import { rotateSigningKey, signingKeys, withdrawSigningKey } from '../oauth/index.js';
import { openPublishingBus } from '../store/index.js';
import { commandLogger, openConfiguredDatabase } from './cli-database.js';
import { OAUTH_USAGE } from './cli-usage.js';

/** `salary-api oauth …`: the signing keys; instances hear of a change through the bus. */
export async function oauthCommand(
  config: Config,
  sub: string | undefined,
  kid: string | undefined,
  json: boolean,
): Promise<number> {
  const logger = commandLogger(config.logLevel);
  const db = await openConfiguredDatabase(config, logger, 'salary-api oauth');
  const changes = await openPublishingBus(config.redisUrl, config.redisKeyPrefix, logger);
  try {
    const at = new Date(systemClock.now());
    if (sub === 'rotate-signing-key') {
      const box = createSecretBox(resolveSecretKey(config), 'oauth-signing-keys');
      const created = await rotateSigningKey(db, box, at);
      await changes.bus.publish('credentials');
      console.log(json ? JSON.stringify({ kid: created }) : `new signing key ${created}`);
      return 0;
    }
    if (sub === 'withdraw-signing-key' && kid !== undefined) {
      if (!(await withdrawSigningKey(db, kid, at.toISOString()))) {
        console.error(`no signing key ${kid} that is still published`);
        return 1;
      }
      await changes.bus.publish('credentials');
      console.log(json ? JSON.stringify({ withdrawn: kid }) : `signing key ${kid} withdrawn`);
      return 0;
    }
    if (sub === 'signing-keys') {
      const rows = (await signingKeys(db)).map((k) => ({
        kid: k.kid,
        alg: k.alg,
        created_at: k.createdAt,
        retired_at: k.retiredAt,
        withdrawn_at: k.withdrawnAt,
      }));
      console.log(
        json ? JSON.stringify(rows) : rows.map((r) => Object.values(r).join('\t')).join('\n'),
      );
      return 0;
    }
    console.error(OAUTH_USAGE);
    return 2;
  } finally {
    await changes.close();
    await db.close();
  }
}
