import { Type, type Static } from '@sinclair/typebox';
import { FORMATS } from '../plans/index.js';
import { StringEnum } from '../lib/string-enum.js';

export const ExportQuerySchema = Type.Object(
  {
    kind: StringEnum(['archive', 'job', 'country'], {
      description: 'archive: every country and job; job or country: one of them, all of the other.',
    }),
    job: Type.Optional(Type.String({ maxLength: 100, description: 'With kind job.' })),
    country: Type.Optional(Type.String({ maxLength: 3, description: 'With kind country.' })),
    years: Type.String({
      pattern: '^(current|all|last [1-9][0-9]?)$',
      description: '`current`, `all` the plan reaches, or `last N` years up to the current one.',
    }),
    fields: Type.Optional(
      Type.String({
        maxLength: 500,
        description: 'Extra fields, comma-separated, as on the bulk endpoints.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ExportQuery = Static<typeof ExportQuerySchema>;

const HOST_KEY_PATTERN = '^SHA256:[A-Za-z0-9+/]{43}=?$';

export const SftpDestinationSchema = Type.Object(
  {
    type: Type.Literal('sftp'),
    host: Type.String({ minLength: 1, maxLength: 253 }),
    port: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 65535, description: '22 unless given.' }),
    ),
    username: Type.String({ minLength: 1, maxLength: 100 }),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, writeOnly: true })),
    private_key: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 20_000,
        writeOnly: true,
        description: 'An unencrypted OpenSSH or PEM private key.',
      }),
    ),
    host_key_sha256: Type.String({
      pattern: HOST_KEY_PATTERN,
      description: 'The server host key fingerprint as `ssh-keygen -lf` prints it (`SHA256:…`).',
    }),
    path: Type.String({ minLength: 1, maxLength: 1000, description: 'The remote folder.' }),
  },
  { additionalProperties: false },
);

export const WebhookDestinationSchema = Type.Object(
  {
    type: Type.Literal('webhook'),
    url: Type.String({
      minLength: 1,
      maxLength: 2000,
      description:
        'Receives `export.completed` and `export.failed`, signed (Standard Webhooks) with the export’s own secret; https, public addresses only.',
    }),
  },
  { additionalProperties: false },
);

export const DestinationSchema = Type.Union([SftpDestinationSchema, WebhookDestinationSchema]);
export type DestinationInput = Static<typeof DestinationSchema>;
export type SftpDestinationInput = Static<typeof SftpDestinationSchema>;

/** What is stored in the clear and shown back; secrets are sealed apart. */
export type PublicDestination =
  | {
      type: 'sftp';
      host: string;
      port: number;
      username: string;
      auth: 'password' | 'private_key';
      host_key_sha256: string;
      path: string;
    }
  | { type: 'webhook'; url: string };
export type SftpDestination = Extract<PublicDestination, { type: 'sftp' }>;

/** The sealed part: the SFTP credential, or the webhook destination's signing secret. */
export type DestinationSecret =
  { password: string } | { private_key: string } | { webhook_secret: string };

/**
 * The most bytes of export files an account keeps at once: a new file past it drops the
 * account's oldest files first (those past their 7 days before any other).
 */
export const EXPORT_STORAGE_CAP_BYTES = 2 * 1024 ** 3;

/** How long a webhook destination's file stays downloadable. */
export const EXPORT_FILE_TTL_MS = 7 * 24 * 3_600_000;

export const EXPORT_FORMATS = FORMATS;
export type ExportFormat = (typeof FORMATS)[number];
