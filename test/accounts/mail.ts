import { headerOf, type ReceivedMail } from '../helpers/smtp.js';

/** A received message's text, quoted-printable soft breaks and escapes undone. */
export function mailText(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

/** The messages to `email` with `subject`, oldest first. */
export function mailsTo(received: readonly ReceivedMail[], email: string, subject: string) {
  return received.filter((m) => m.to.includes(email) && headerOf(m.raw, 'Subject') === subject);
}

/** The token of the dashboard link `path` in the last such message (throws without one). */
export function mailedToken(
  received: readonly ReceivedMail[],
  email: string,
  subject: string,
  path: string,
): string {
  const mail = mailsTo(received, email, subject).at(-1);
  if (mail === undefined) throw new Error(`no "${subject}" mail to ${email}`);
  const match = new RegExp(`/dashboard/${path}\\?token=([A-Za-z0-9_.-]+)`).exec(mailText(mail.raw));
  if (match === null) throw new Error(`no ${path} link in the mail:\n${mail.raw}`);
  return match[1]!;
}
