import { SMTPServer } from 'smtp-server';

/** One message as the SMTP server received it. */
export interface ReceivedMail {
  from: string;
  to: string[];
  /** The whole message as sent: headers and body. */
  raw: string;
}

export interface TestSmtp {
  url: string;
  port: number;
  received: ReceivedMail[];
  /** While set, every message is refused with this temporary failure (a 451 reply). */
  refuse: boolean;
  close(): Promise<void>;
}

/** A real SMTP server on a free loopback port that keeps what it receives. */
export async function startSmtp(): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const state: TestSmtp = {
    url: '',
    port: 0,
    received,
    refuse: false,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (state.refuse) {
          const error = Object.assign(new Error('try again later'), { responseCode: 451 });
          callback(error);
          return;
        }
        received.push({
          from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.server.address();
  state.port = typeof address === 'object' && address !== null ? address.port : 0;
  state.url = `smtp://127.0.0.1:${state.port}`;
  return state;
}

/** A header of a received message, unfolded (long headers span lines). */
export function headerOf(raw: string, name: string): string {
  const head = raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, ' ');
  return new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1]?.trim() ?? '';
}

/**
 * The secrets (of `secrets`) that appear in any received message: as sent, with soft line
 * breaks of quoted-printable removed, quoted-printable decoded, or in base64 (at any of the
 * three alignments a secret can take inside a longer base64 text).
 */
export function secretsMailed(
  received: readonly ReceivedMail[],
  secrets: readonly string[],
): string[] {
  const everything = received.map((m) => m.raw).join('\n');
  const unwrapped = everything.replace(/=\r?\n/g, '');
  const qpDecoded = unwrapped.replace(/=([0-9A-F]{2})/g, (_, h: string) =>
    String.fromCharCode(parseInt(h, 16)),
  );
  const base64Bodies = (everything.match(/(?:^[A-Za-z0-9+/=]{8,}\r?\n)+/gm) ?? [])
    .map((block) => Buffer.from(block.replace(/\s+/g, ''), 'base64').toString('utf8'))
    .join('\n');
  return secrets.filter((secret) => {
    if (secret.length <= 8) throw new Error(`too short to search for: ${secret}`);
    return [everything, unwrapped, qpDecoded, base64Bodies].some((text) => text.includes(secret));
  });
}
