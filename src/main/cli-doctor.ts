import { ConfigError, loadConfig } from '../config/index.js';
import {
  BEFORE_OPEN_CHECKS,
  formatResults,
  openForDoctor,
  runChecks,
  type CheckResult,
} from '../doctor/index.js';

/**
 * `doctor`: one line per check with what to do; exit 0 only when none failed.
 * The configuration is read here (not before) so an invalid one is reported as a check.
 */
export async function doctorCommand(json: boolean): Promise<number> {
  const results: CheckResult[] = [];
  let config;
  try {
    config = loadConfig();
    results.push({ check: 'configuration', status: 'ok', detail: 'valid' });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    results.push({
      check: 'configuration',
      status: 'fail',
      detail: error.problems.join('; '),
      fix: 'fix the variables listed (see the README)',
    });
  }
  if (config !== undefined) {
    results.push(
      ...(await runChecks({ config, db: undefined, now: Date.now }, BEFORE_OPEN_CHECKS)),
    );
    const { db, result } = await openForDoctor(config);
    results.push(result);
    try {
      results.push(...(await runChecks({ config, db, now: Date.now })));
    } finally {
      await db?.close();
    }
  }
  console.log(json ? JSON.stringify({ results }, null, 2) : formatResults(results));
  return results.some((r) => r.status === 'fail') ? 1 : 0;
}
