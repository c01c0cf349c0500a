import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './redis.js';

const BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';
// initdb and postgres refuse to run as root.
const asPostgres = (command: string, args: string[]): [string, string[]] =>
  process.getuid?.() === 0
    ? ['runuser', ['-u', 'postgres', '--', command, ...args]]
    : [command, args];

/** A private PostgreSQL server in a temporary folder, which a test may stop and start again. */
export class PrivatePostgres {
  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  static async start(): Promise<PrivatePostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'salary-api-pg-'));
    if (process.getuid?.() === 0) execFileSync('chown', ['postgres:postgres', dir]);
    const [cmd, args] = asPostgres(`${BIN}/initdb`, [
      '-D',
      join(dir, 'data'),
      '-A',
      'trust',
      '-U',
      'postgres',
      '--no-sync',
    ]);
    execFileSync(cmd, args, { stdio: 'ignore' });
    const server = new PrivatePostgres(dir, await freePort());
    await server.start();
    return server;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  async start(): Promise<void> {
    const [cmd, args] = asPostgres(`${BIN}/postgres`, [
      '-D',
      join(this.dir, 'data'),
      '-p',
      String(this.port),
      '-k',
      this.dir,
      '-h',
      '127.0.0.1',
      '-c',
      'fsync=off',
    ]);
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`postgres did not start: ${out}`)), 20_000);
      child.stderr?.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`postgres exited with ${code}: ${out}`));
      });
    });
  }

  /** Fast shutdown (every connection dropped), waiting until the server is gone. */
  async stop(): Promise<void> {
    let pid: number;
    try {
      pid = Number(readFileSync(join(this.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    } catch {
      return;
    }
    try {
      process.kill(pid, 'SIGINT');
    } catch {
      return;
    }
    for (let i = 0; i < 200; i++) {
      try {
        process.kill(pid, 0);
      } catch {
        return;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    process.kill(pid, 'SIGKILL');
  }

  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
