import type { Transporter } from 'nodemailer';
import type { Logger } from '../lib/logger.js';

/** One message as handed to the transport. */
export interface OutgoingMail {
  from: string;
  to: readonly string[];
  subject: string;
  text: string;
  html: string;
  /** Stable per notice, so a receiver can tell a resend after a crash from a new message. */
  messageId: string;
}

/** Where mail goes: an SMTP server, or the log when none is configured. */
export interface MailTransport {
  readonly kind: 'smtp' | 'log';
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/** Connect, greeting and idle limits of one SMTP conversation; the claim lease outlives them. */
export const SMTP_TIMEOUT_MS = 15_000;

/** A nodemailer transporter for `url`; nodemailer is loaded on first use, not with the server. */
async function smtpTransporter(url: string): Promise<Transporter> {
  const { default: nodemailer } = await import('nodemailer');
  return nodemailer.createTransport({
    url,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  });
}

/**
 * Sends through the SMTP server of `url` (`smtp://user:pass@host:587`, STARTTLS when the
 * server offers it; `smtps://` for implicit TLS).
 */
export function smtpTransport(url: string): MailTransport {
  // One transporter, made with the first mail (concurrent first mails share it).
  let transporter: Promise<Transporter> | undefined;
  return {
    kind: 'smtp',
    async send(mail) {
      const smtp = await (transporter ??= smtpTransporter(url));
      await smtp.sendMail({
        from: mail.from,
        to: [...mail.to],
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId: mail.messageId,
      });
    },
    close() {
      void transporter?.then((t) => t.close());
    },
  };
}

/** Without SMTP_URL: each message is written to the log at info level instead. */
export function logTransport(logger: Logger): MailTransport {
  return {
    kind: 'log',
    send(mail) {
      logger.info(
        {
          mail: { to: mail.to, subject: mail.subject, text: mail.text, messageId: mail.messageId },
        },
        'mail not sent (no SMTP_URL); logged instead',
      );
      return Promise.resolve();
    },
    close() {},
  };
}

/** Where notices go: SMTP_URL's server, or the log without one. */
export function mailTransport(smtpUrl: string | undefined, logger: Logger): MailTransport {
  return smtpUrl === undefined ? logTransport(logger) : smtpTransport(smtpUrl);
}

/**
 * Checks that the SMTP server of `url` answers: connects, greets (EHLO), starts TLS when
 * offered and logs in when the URL has credentials. Resolves, or rejects with the reason.
 */
export async function verifySmtp(url: string): Promise<void> {
  const transporter = await smtpTransporter(url);
  try {
    await transporter.verify();
  } finally {
    transporter.close();
  }
}
