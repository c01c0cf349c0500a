// The client as an outsider gets it: packed with `npm pack`, installed from the tarball into a
// project of its own (offline, from npm's cache: every runtime dependency is one the repository
// installs already), called from plain Node and type-checked by tsc.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { accountOnPlan } from '../../../test/helpers/accounts.js';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { listenHttp } from '../../../test/helpers/http.js';

const run = promisify(execFile);
// The directories themselves, not links to their files (`npm test` runs a compiled copy of the
// repository whose other files are links, and npm packs no link).
const CLIENT_DIR = dirname(realpathSync(new URL('../package.json', import.meta.url)));
const ROOT = dirname(realpathSync(new URL('../../../package.json', import.meta.url)));
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
/** The environment without what `npm test` sets for its own project (npm_config_local_prefix …). */
const ENV = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')),
);

interface LockEntry {
  version?: string;
  integrity?: string;
  license?: string;
  dependencies?: Record<string, string>;
}

/**
 * A lockfile for a project depending on the tarball alone: the client's runtime dependencies,
 * transitively, as the repository's own lockfile pins them (so npm finds them in its cache).
 */
async function scratchLock(tarball: string): Promise<object> {
  const root = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const client = root.packages['clients/typescript']!;
  const integrity = `sha512-${createHash('sha512')
    .update(await readFile(tarball))
    .digest('base64')}`;
  const packages: Record<string, LockEntry & { resolved?: string; name?: string }> = {
    '': { name: 'scratch', dependencies: { '@salary-api/client': `file:${tarball}` } },
    'node_modules/@salary-api/client': {
      version: client.version!,
      resolved: `file:${tarball}`,
      integrity,
      dependencies: client.dependencies ?? {},
    },
  };
  const pending = Object.keys(client.dependencies ?? {});
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    const key = `node_modules/${name}`;
    if (packages[key] !== undefined) continue;
    const entry = root.packages[key];
    assert.ok(entry, `runtime dependency ${name} is not installed by the repository`);
    packages[key] = entry;
    pending.push(...Object.keys(entry.dependencies ?? {}));
  }
  return { name: 'scratch', lockfileVersion: 3, requires: true, packages };
}

const CALL = `
import { createSalaryClient, SalaryApiError } from '@salary-api/client';
const client = createSalaryClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.API_KEY });
const { data } = await client.api.GET('/api/v1/salary', {
  params: { query: { country: 'DE', job: 'software-engineer', level: 'senior' } },
});
const anonymous = createSalaryClient({ baseUrl: process.env.BASE_URL });
let refused;
try {
  await anonymous.api.GET('/api/v1/bulk/countries', { params: { query: { job: 'nurse' } } });
} catch (error) {
  refused = error instanceof SalaryApiError ? [error.status, error.code] : String(error);
}
console.log(JSON.stringify({ data, refused }));
`;

const TYPED = `
import { createSalaryClient, SalaryApiError } from '@salary-api/client';
const client = createSalaryClient({ baseUrl: 'https://salary-api.example.com', retry: true });
const { data } = await client.api.GET('/api/v1/salary', {
  params: { query: { country: 'DE', job: 'nurse', level: 'senior' } },
});
const medians: number[] = (data?.data ?? []).map((row) => row.median);
const codeOf = (error: unknown): string | null =>
  error instanceof SalaryApiError ? error.code : null;
export { medians, codeOf };
`;

// A misspelt parameter and a field the answer does not have: both must be type errors.
const MISTYPED = `
import { createSalaryClient } from '@salary-api/client';
const client = createSalaryClient({ baseUrl: 'https://salary-api.example.com' });
const { data } = await client.api.GET('/api/v1/salary', {
  params: { query: { country: 'DE', jobb: 'nurse' } },
});
const wrong: string = data?.data[0]?.median_pay;
export { wrong };
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2023', 'DOM', 'DOM.Iterable'],
    types: [],
    strict: true,
    noEmit: true,
  },
};

describe('the packed TypeScript client, installed from its tarball', () => {
  let t: TestApp;
  let baseUrl: string;
  let apiKey: string;
  let scratch: string;
  let files: string[];

  before(async () => {
    t = await buildTestApp();
    ({ base: baseUrl } = await listenHttp(t));
    apiKey = (await accountOnPlan(t, 'business')).apiKey!;
    scratch = await mkdtemp(join(tmpdir(), 'salary-client-'));
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', scratch], {
      cwd: CLIENT_DIR,
      env: ENV,
    });
    const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as {
      filename: string;
      files: { path: string }[];
    }[];
    files = packed!.files.map((file) => file.path);
    const tarball = join(scratch, packed!.filename);
    await writeFile(
      join(scratch, 'package.json'),
      JSON.stringify({
        name: 'scratch',
        private: true,
        type: 'module',
        dependencies: { '@salary-api/client': `file:${tarball}` },
      }),
    );
    await writeFile(join(scratch, 'package-lock.json'), JSON.stringify(await scratchLock(tarball)));
    await run('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], {
      cwd: scratch,
      env: ENV,
    });
    for (const name of ['typed', 'mistyped'])
      await writeFile(
        join(scratch, `${name}.json`),
        JSON.stringify({ ...TSCONFIG, files: [`${name}.ts`] }),
      );
  });
  after(async () => {
    await t.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('holds compiled JavaScript, declarations, the README and the license, and no test or source', () => {
    for (const path of ['dist/index.js', 'dist/index.d.ts', 'README.md', 'LICENSE', 'package.json'])
      assert.ok(files.includes(path), `${path} is in the package`);
    const stray = files.filter(
      (path) => /(^|\/)test\//.test(path) || /\.test\./.test(path) || /^(src|scripts)\//.test(path),
    );
    assert.deepEqual(stray, []);
    assert.ok(
      files.every((path) => !path.endsWith('.ts') || path.endsWith('.d.ts')),
      'no TypeScript source',
    );
  });

  it('answers a typed call from plain Node as the server answers it, and throws its problems typed', async () => {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', CALL], {
      cwd: scratch,
      env: { ...ENV, BASE_URL: baseUrl, API_KEY: apiKey },
    });
    const { data, refused } = JSON.parse(stdout) as { data: unknown; refused: unknown };
    const direct = await fetch(
      `${baseUrl}/api/v1/salary?country=DE&job=software-engineer&level=senior`,
      { headers: { authorization: `Bearer ${apiKey}` } },
    );
    assert.equal(direct.status, 200);
    assert.deepEqual(data, await direct.json());
    assert.deepEqual(refused, [403, 'FEATURE_NOT_IN_PLAN']);
  });

  it('type-checks a program using its types with tsc, and refuses one that misuses them', async () => {
    await writeFile(join(scratch, 'typed.ts'), TYPED);
    await writeFile(join(scratch, 'mistyped.ts'), MISTYPED);
    await run(process.execPath, [TSC, '-p', 'typed.json'], { cwd: scratch }).catch(
      (error: { stdout: string }) => assert.fail(error.stdout),
    );
    const refused = await run(process.execPath, [TSC, '-p', 'mistyped.json'], {
      cwd: scratch,
    }).then(
      () => assert.fail('mistyped.ts compiled'),
      (error: { stdout: string }) => error.stdout,
    );
    assert.match(refused, /mistyped\.ts\(5,.*'jobb'/);
    assert.match(refused, /mistyped\.ts\(7,.*'median_pay'/);
  });
});
