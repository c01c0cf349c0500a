import { prefixedId } from '../lib/ids.js';
import { NO_RESPONSE, untilTimeout, type WebhookSender } from '../webhooks/index.js';
import { DeliveryError } from './delivery-error.js';
import { probeSftp, UnverifiedServerError, type SftpTarget } from './sftp.js';
import type { PublicDestination } from './types.js';
import { sendSigned } from './webhook-destination.js';

/** What the caller is told. */
export interface DestinationTestAnswer {
  ok: boolean;
  error: string | null;
  /** Webhook destinations: the one-off secret that signed the test event. */
  secret?: string;
}

/**
 * The one answer to an SFTP test that did not reach the SSH server the destination names:
 * refused, reset, timed out, no address, another protocol, or (for a host not saved on the
 * export being edited) another host key. Which one is in the operator's log only.
 */
export const NO_SSH_SERVER =
  'could not reach an SSH server with host_key_sha256 (the connection failed or timed out, or met another protocol or another host key; which one is not shown)';

/**
 * Tests a destination as a customer may, on any host and port: every failure is answered when
 * the test's timeout (the webhook sender's) would have ended, and every network outcome reads
 * the same, so neither the words nor the time tell a closed port from an open or a filtered one.
 * A host-key mismatch is named (with the key the server showed) only for the host saved on the
 * export being edited (`savedHost`), and only once the SSH handshake showed a key. `detail`
 * is the reason, for the operator's log.
 */
export async function testDestination(
  deps: { sender: WebhookSender; allowPrivateTargets: boolean; nowMs: number },
  destination: PublicDestination,
  credential: { secret?: string; sftp?: SftpTarget },
  savedHost: string | null,
): Promise<{ answer: DestinationTestAnswer; detail: string | null }> {
  const timeoutMs = deps.sender.timeoutMs;
  const started = performance.now();
  if (destination.type === 'webhook') {
    const secret = credential.secret!;
    const result = await sendSigned(
      deps.sender,
      destination.url,
      secret,
      prefixedId('msg_test'),
      'export.test',
      { message: 'A test of an export destination from the salary API.' },
      deps.nowMs,
    );
    if (result.statusCode === null) await untilTimeout(started, timeoutMs);
    return {
      answer: { ok: result.ok, error: result.ok ? null : (result.error ?? NO_RESPONSE), secret },
      detail: result.detail,
    };
  }
  try {
    await probeSftp(credential.sftp!, deps.allowPrivateTargets, timeoutMs);
    return { answer: { ok: true, error: null }, detail: null };
  } catch (error) {
    if (!(error instanceof DeliveryError)) throw error;
    await untilTimeout(started, timeoutMs);
    const named =
      error instanceof UnverifiedServerError &&
      error.seenHostKey !== null &&
      savedHost !== null &&
      savedHost.toLowerCase() === destination.host.toLowerCase();
    const shown = error instanceof UnverifiedServerError && !named ? NO_SSH_SERVER : error.message;
    return { answer: { ok: false, error: shown }, detail: error.message };
  }
}
