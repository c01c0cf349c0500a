import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export const SSHD = '/usr/sbin/sshd';

/** A free loopback port (bound, read, released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface TestSshd {
  port: number;
  username: string;
  /** The client's private key (OpenSSH format), authorised on this server. */
  privateKey: string;
  /** A private key the server does not accept. */
  otherKey: string;
  /** The host key fingerprint, `SHA256:…`. */
  hostKeySha256: string;
  /** The folder uploads land in (absolute, on this machine). */
  uploads: string;
  /** Kills the server (SIGKILL) with its sessions. */
  kill(): void;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The processes below `pid` (sshd's per-connection sessions), deepest first. */
function descendants(pid: number): number[] {
  let children: number[] = [];
  try {
    children = execFileSync('pgrep', ['-P', String(pid)])
      .toString()
      .split('\n')
      .filter((l) => l !== '')
      .map(Number);
  } catch {
    // pgrep exits 1 when there are none
  }
  return children.flatMap((c) => [...descendants(c), c]);
}

function keyPair(dir: string, name: string): string {
  const path = join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', path]);
  return path;
}

/**
 * A real OpenSSH server on a free loopback port: a temporary host key, one authorised client
 * key for the current user, the internal SFTP subsystem, and a temporary upload folder.
 */
export async function startSshd(): Promise<TestSshd> {
  const dir = mkdtempSync(join(tmpdir(), 'salary-api-sshd-'));
  const hostKey = keyPair(dir, 'host_key');
  const client = keyPair(dir, 'client_key');
  const other = keyPair(dir, 'other_key');
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(`${client}.pub`));
  const uploads = join(dir, 'uploads');
  mkdirSync(uploads);
  mkdirSync('/run/sshd', { recursive: true }); // privilege separation directory
  const port = await freePort();
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'PermitRootLogin prohibit-password',
      'StrictModes no',
      'UsePAM no',
      'Subsystem sftp internal-sftp',
      'LogLevel ERROR',
      '',
    ].join('\n'),
  );
  const print = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${hostKey}.pub`])
    .toString()
    .split(' ')[1]!;
  let child: ChildProcess | undefined;

  async function start(): Promise<void> {
    child = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    // Listening once a TCP connection is accepted.
    for (let i = 0; i < 100; i++) {
      if (child.exitCode !== null) throw new Error(`sshd exited: ${log}`);
      const up = await new Promise<boolean>((resolve) => {
        const s = connect(port, '127.0.0.1');
        s.once('connect', () => (s.destroy(), resolve(true)));
        s.once('error', () => resolve(false));
      });
      if (up) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`sshd did not listen: ${log}`);
  }

  function kill(): void {
    // The listener and every session process it forked, by id: as if the server crashed.
    if (child?.pid === undefined) return;
    for (const pid of [...descendants(child.pid), child.pid]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  await start();
  return {
    port,
    username: userInfo().username,
    privateKey: readFileSync(client, 'utf8'),
    otherKey: readFileSync(other, 'utf8'),
    hostKeySha256: print,
    uploads,
    kill,
    start,
    async stop() {
      kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
