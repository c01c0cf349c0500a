import { createHash } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Client, type SFTPWrapper } from 'ssh2';
import { addressRefusal } from '../webhooks/index.js';
import { DeliveryError } from './delivery-error.js';

export interface SftpTarget {
  host: string;
  port: number;
  username: string;
  password?: string;
  privateKey?: string;
  hostKeySha256: string;
  path: string;
}

const CONNECT_TIMEOUT_MS = 20_000;

/**
 * A failure before the server proved to be the SSH server the destination names (its host key
 * checked): no address, refused, reset, timed out, another protocol, or another host key
 * (`seenHostKey`, set only when the SSH handshake got as far as showing one).
 */
export class UnverifiedServerError extends DeliveryError {
  constructor(
    message: string,
    retry: boolean,
    readonly seenHostKey: string | null = null,
  ) {
    super(message, retry);
    this.name = 'UnverifiedServerError';
  }
}

/** OpenSSH's fingerprint of a host key: `SHA256:` and the unpadded base64 of its hash. */
export function hostKeyFingerprint(key: Buffer): string {
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

const samePrint = (a: string, b: string): boolean => a.replace(/=+$/, '') === b.replace(/=+$/, '');

/** The address to connect to, checked by the outbound address guard (as webhook sends are). */
async function resolveTarget(host: string, allowPrivate: boolean): Promise<string> {
  let address: string;
  try {
    ({ address } = await lookup(host));
  } catch {
    throw new UnverifiedServerError(`${host} does not resolve`, true);
  }
  const refusal = allowPrivate ? null : addressRefusal(address);
  if (refusal !== null)
    throw new UnverifiedServerError(`${refusal}; only public addresses are allowed`, false);
  return address;
}

/**
 * One SFTP session: connects to the checked address, refuses any host key but the expected
 * one (before authenticating, so nothing is sent), then hands the SFTP channel to `work`.
 */
export async function withSftp<T>(
  target: SftpTarget,
  allowPrivate: boolean,
  work: (sftp: SFTPWrapper) => Promise<T>,
  connectTimeoutMs = CONNECT_TIMEOUT_MS,
): Promise<T> {
  const address = await resolveTarget(target.host, allowPrivate);
  const client = new Client();
  let seenHostKey: string | null = null;
  let verified = false;
  try {
    const sftp = await new Promise<SFTPWrapper>((resolve, reject) => {
      client.on('error', (error: Error & { level?: string }) => {
        if (seenHostKey !== null && !verified)
          reject(
            new UnverifiedServerError(
              `the server's host key ${seenHostKey} does not match host_key_sha256`,
              false,
              seenHostKey,
            ),
          );
        else if (!verified)
          reject(
            new UnverifiedServerError(
              error.level === 'client-timeout'
                ? 'the connection timed out'
                : `connection failed: ${error.message}`,
              true,
            ),
          );
        else if (error.level === 'client-authentication')
          reject(new DeliveryError('the server refused the username and credential', true));
        else if (error.level === 'client-timeout')
          reject(new DeliveryError('the connection timed out', true));
        else reject(new DeliveryError(`connection failed: ${error.message}`, true));
      });
      // A connection closed before the session is ready, with no error, ends the wait too.
      client.once('close', () =>
        reject(
          verified
            ? new DeliveryError('the server closed the connection', true)
            : new UnverifiedServerError('the connection closed before the handshake', true),
        ),
      );
      client.on('ready', () => {
        client.sftp((error, channel) => {
          if (error !== undefined)
            reject(new DeliveryError(`no SFTP subsystem: ${error.message}`, true));
          else resolve(channel);
        });
      });
      client.connect({
        host: address,
        port: target.port,
        username: target.username,
        ...(target.password !== undefined ? { password: target.password } : {}),
        ...(target.privateKey !== undefined ? { privateKey: target.privateKey } : {}),
        readyTimeout: connectTimeoutMs,
        keepaliveInterval: 10_000,
        keepaliveCountMax: 3,
        tryKeyboard: false,
        hostVerifier: (key: Buffer) => {
          seenHostKey = hostKeyFingerprint(key);
          verified = samePrint(seenHostKey, target.hostKeySha256);
          return verified;
        },
      });
    });
    // A server that goes away mid-transfer ends the work with the connection.
    const closed = new Promise<never>((_, reject) => {
      client.once('close', () =>
        reject(new DeliveryError('the server closed the connection', true)),
      );
    });
    closed.catch(() => undefined); // after a finished work, the close is expected
    return await Promise.race([work(sftp), closed]);
  } finally {
    client.end();
  }
}

const call = <T>(fn: (cb: (error: Error | null | undefined, value?: T) => void) => void) =>
  new Promise<T>((resolve, reject) =>
    fn((error, value) => (error ? reject(error) : resolve(value as T))),
  );

async function exists(sftp: SFTPWrapper, path: string): Promise<boolean> {
  try {
    await call((cb) => sftp.stat(path, cb));
    return true;
  } catch {
    return false;
  }
}

/**
 * Uploads `body` to `<dir>/<name>.part` (replacing a partial file of an earlier attempt),
 * renames it to `<dir>/<name>` (or `<stem>-<runId><ext>` when that exists: never overwritten),
 * then checks the remote size against `sent()`. Returns the final path.
 */
export async function uploadFile(
  sftp: SFTPWrapper,
  dir: string,
  name: string,
  runId: string,
  body: Readable,
  sent: () => number,
): Promise<string> {
  let finalPath = posix.join(dir, name);
  if (await exists(sftp, finalPath)) {
    const dot = name.indexOf('.');
    finalPath = posix.join(dir, `${name.slice(0, dot)}-${runId}${name.slice(dot)}`);
  }
  const partPath = `${finalPath}.part`;
  try {
    await pipeline(body, sftp.createWriteStream(partPath, { flags: 'w', mode: 0o640 }));
  } catch (error) {
    throw new DeliveryError(`upload failed: ${(error as Error).message}`, true);
  }
  try {
    await call((cb) => sftp.rename(partPath, finalPath, cb));
  } catch (error) {
    throw new DeliveryError(`rename to the final name failed: ${(error as Error).message}`, true);
  }
  const stats = await call<{ size: number }>((cb) => sftp.stat(finalPath, cb));
  if (stats.size !== sent())
    throw new DeliveryError(`the remote file has ${stats.size} bytes, ${sent()} were sent`, true);
  return finalPath;
}

/**
 * Checks a destination without exporting: connects, writes and removes a small file, all within
 * `timeoutMs` (beyond it, a DeliveryError; an UnverifiedServerError before the host key).
 */
export async function probeSftp(
  target: SftpTarget,
  allowPrivate: boolean,
  timeoutMs: number,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let ready = false;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const why = `the test did not finish within ${timeoutMs / 1000} s`;
      reject(ready ? new DeliveryError(why, true) : new UnverifiedServerError(why, true));
    }, timeoutMs);
  });
  const work = withSftp(
    target,
    allowPrivate,
    async (sftp) => {
      ready = true;
      const path = posix.join(target.path, `.salary-api-test-${Date.now()}`);
      try {
        await call((cb) =>
          sftp.writeFile(path, 'salary-api destination test\n', (e) => cb(e ?? null)),
        );
        await call((cb) => sftp.unlink(path, (e) => cb(e ?? null)));
      } catch (error) {
        throw new DeliveryError(
          `could not write to ${target.path}: ${(error as Error).message}`,
          true,
        );
      }
    },
    timeoutMs,
  );
  work.catch(() => undefined); // a failure after the deadline is no one's concern
  try {
    await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
