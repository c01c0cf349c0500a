/**
 * The fault experiments of issue 22, scaled down, against real `serve` processes on a fresh
 * PostgreSQL database (TEST_DATABASE_URL): (A) backends terminated and the network cut while
 * writers run; (B) kill -9 under idempotent creates, every key retried until it answers.
 * Run by hand: `node --import tsx bench/chaos-faults.ts`. Prints the figures.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { freshPostgres } from '../test/helpers/db.js';
import { call, LOOKUP, startInstance, type Instance } from '../test/helpers/instances.js';
import { TcpProxy } from '../test/helpers/tcp-proxy.js';
import { loadBundledRelease, operatorServices, paidAccount } from '../test/redis/fixture.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const db = await freshPostgres();
await loadBundledRelease(db.db);
const s = await operatorServices(db.db, {});
const accounts = await Promise.all([0, 1, 2].map(() => paidAccount(s, 'enterprise')));
const direct = new URL(db.url);
const proxy = await TcpProxy.start({ host: direct.hostname, port: Number(direct.port || 5432) });
const proxied = new URL(db.url);
proxied.port = String(proxy.port);
const env = { DATABASE_URL: proxied.toString(), USAGE_FLUSH_SECONDS: '1' };
const instances: Instance[] = await Promise.all([0, 1, 2].map(() => startInstance(env)));

async function createKey(instance: Instance, token: string, key: string) {
  const r = await fetch(`${instance.url}/api/v1/keys`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'idempotency-key': key,
    },
    body: JSON.stringify({ name: key }),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: r.status, body: (await r.json()) as { id?: string; key?: string } };
}

// (A) Writers and readers on every instance; four backend terminations, then a 5 s cut.
const statuses = new Map<string, number>();
const started = performance.now();
const timeline: string[] = [];
const count = (k: string) => {
  statuses.set(k, (statuses.get(k) ?? 0) + 1);
  if (!k.startsWith('lookup'))
    timeline.push(`${((performance.now() - started) / 1000).toFixed(1)}:${k}`);
};
let running = true;
const loops = instances.flatMap((instance, i) => [
  (async () => {
    while (running) {
      try {
        count(
          String(
            (await createKey(instance, accounts[i]!.apiKey, `a-${randomBytes(6).toString('hex')}`))
              .status,
          ),
        );
      } catch (e) {
        count(`failed: ${(e as Error).message}`);
      }
    }
  })(),
  (async () => {
    while (running) {
      try {
        count(
          `lookup ${(await call(instance.url, LOOKUP, { token: accounts[i]!.apiKey })).status}`,
        );
      } catch (e) {
        count(`lookup failed: ${(e as Error).message}`);
      }
    }
  })(),
]);
const admin = new pg.Client({ connectionString: db.url });
await admin.connect();
for (let trial = 0; trial < 4; trial++) {
  await sleep(1500);
  await admin.query(
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
  );
}
await sleep(1500);
await proxy.cut();
await sleep(5000);
await proxy.open();
await sleep(3000);
running = false;
await Promise.all(loops);
const alive = instances.filter(
  (i) => i.child.exitCode === null && i.child.signalCode === null,
).length;
console.log('A: instances alive after 4 terminations and a 5 s cut:', alive, 'of 3');
console.log('A: answers', Object.fromEntries([...statuses].sort()));
if (process.env.TIMELINE) console.log(timeline.join(' '));

// (B) Idempotent creates under kill -9: each key retried (any instance) until 201.
const results = new Map<string, { ids: Set<string>; secrets: Set<string>; conflicts: number }>();
let killing = true;
const killer = (async () => {
  let n = 0;
  while (killing) {
    await sleep(700 + Math.random() * 800);
    const i = n++ % 3;
    await instances[i]!.kill();
    instances[i] = await startInstance(env);
  }
  return n;
})();
const bStarted = performance.now();
const writers = accounts.map(async (account, w) => {
  for (let k = 0; performance.now() - bStarted < 20_000; k++) {
    const key = `b-${w}-${k}`;
    const r = { ids: new Set<string>(), secrets: new Set<string>(), conflicts: 0 };
    results.set(key, r);
    for (let attempt = 0; ; attempt++) {
      const instance = instances[(w + attempt) % 3]!;
      try {
        const a = await createKey(instance, account.apiKey, key);
        if (a.status === 201) {
          r.ids.add(a.body.id!);
          r.secrets.add(a.body.key!);
          break;
        }
        if (a.status === 409) r.conflicts++;
      } catch {
        // the instance died: retry
      }
      await sleep(100);
    }
  }
});
await Promise.all(writers);
killing = false;
const kills = await killer;
const names = await admin.query<{ name: string; n: number }>(
  "SELECT name, count(*)::int AS n FROM api_keys WHERE name LIKE 'b-%' GROUP BY name",
);
const created = new Map(names.rows.map((r) => [r.name, r.n]));
const keys = [...results.keys()];
console.log('B: kill -9 during the run:', kills);
console.log(
  'B: keys answered 201:',
  [...results.values()].filter((r) => r.ids.size > 0).length,
  'of',
  results.size,
);
console.log('B: created exactly once:', keys.filter((k) => created.get(k) === 1).length);
console.log(
  'B: one id and one secret per key across retries:',
  keys.filter((k) => results.get(k)!.ids.size === 1 && results.get(k)!.secrets.size === 1).length,
);
console.log(
  'B: 409 in-progress answers seen (all resolved):',
  [...results.values()].reduce((a, r) => a + r.conflicts, 0),
);

await admin.end();
await Promise.all(instances.map((i) => i.kill()));
await proxy.cut();
await db.cleanup();
