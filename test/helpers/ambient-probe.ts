/**
 * Run as its own process by test/store/ambient-tracking.test.ts (node's test runner keeps async
 * hooks on in its own process, so it cannot observe them being switched off): drives an
 * AmbientRouter through the scenario named in argv[2] and prints, as JSON, whether promises
 * were tracked at each step and the statements the driver received.
 */
import { executionAsyncResource } from 'node:async_hooks';
import { AmbientRouter, type OpenTransaction } from '../../src/store/ambient.js';

/** With async hooks on, each await resumes under its own promise resource. */
async function promisesTracked(): Promise<boolean> {
  await Promise.resolve();
  const first = executionAsyncResource();
  await Promise.resolve();
  return executionAsyncResource() !== first;
}

const statements: string[] = [];
function driver(name: string): OpenTransaction {
  return {
    query: async <T>(sql: string) => {
      statements.push(`${name}: ${sql}`);
      return [] as T[];
    },
    end: async (commit) => {
      statements.push(`${name}: ${commit ? 'COMMIT' : 'ROLLBACK'}`);
    },
  };
}

const router = new AmbientRouter();
const steps: Record<string, boolean | number> = { before: await promisesTracked() };
if (process.argv[2] === 'overlapping') {
  const a = router.wrap(driver('a'));
  const b = router.wrap(driver('b'));
  await a.run(() => router.query('INSERT 1'));
  await b.run(() => router.query('INSERT 2'));
  await a.commit();
  steps.afterFirstEnds = await b.run(async () => {
    await router.query('INSERT 3');
    return promisesTracked();
  });
  await b.rollback();
} else {
  const tx = router.wrap(driver('a'));
  steps.during = await tx.run(async () => {
    await router.query('INSERT 1');
    return promisesTracked();
  });
  await tx.commit();
  steps.afterEnd = await promisesTracked();
  const again = router.wrap(driver('b'));
  steps.againDuring = await again.run(async () => {
    await router.query('INSERT 2');
    return promisesTracked();
  });
  await again.rollback();
}
steps.after = await promisesTracked();
steps.open = router.openTransactions;
// Outside every transaction, a statement is not routed (the Db runs it on its own).
steps.routedOutside = router.query('SELECT 1') !== undefined;
process.stdout.write(JSON.stringify({ steps, statements }));
