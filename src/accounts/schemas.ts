import { Type } from '@sinclair/typebox';
import { ACCOUNT_EXAMPLE, SESSION_EXAMPLE, TOTP_CHALLENGE_EXAMPLE } from './examples.js';

export const CredentialsSchema = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254, examples: ['ada@example.com'] }),
    password: Type.String({ minLength: 1, maxLength: 256, description: 'At least 12 characters.' }),
  },
  { additionalProperties: false },
);

export const AccountSchema = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    plan: Type.String(),
    status: Type.String({ description: 'active, or past_due while an invoice is overdue.' }),
    allowlist: Type.Array(Type.String()),
    created_at: Type.String({ format: 'date-time' }),
    email_verified_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description:
        'When the e-mail address was confirmed; null until then (paid plans and API keys need it).',
    }),
  },
  { $id: 'Account', examples: [ACCOUNT_EXAMPLE] },
);

export const SessionSchema = Type.Object(
  {
    token: Type.String({ description: 'Bearer token for account management; shown once.' }),
    expires_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Session', examples: [SESSION_EXAMPLE] },
);

export const TotpChallengeSchema = Type.Object(
  {
    totp_required: Type.Literal(true),
    challenge: Type.String({
      description:
        'Send it with a code to POST /api/v1/sessions/totp; it works once, until expires_at (5 minutes).',
    }),
    expires_at: Type.String({ format: 'date-time' }),
  },
  { examples: [TOTP_CHALLENGE_EXAMPLE] },
);

export const TotpCodeBodySchema = Type.Object(
  {
    challenge: Type.String({ minLength: 1, maxLength: 100 }),
    code: Type.String({
      minLength: 1,
      maxLength: 32,
      description: 'The 6-digit code of the authenticator app, or an unused recovery code.',
    }),
  },
  { additionalProperties: false },
);

export const AllowlistBodySchema = Type.Object(
  {
    allowlist: Type.Array(Type.String({ maxLength: 64 }), {
      maxItems: 100,
      description: 'IPv4/IPv6 addresses and CIDR ranges; empty to allow every address.',
    }),
  },
  { additionalProperties: false },
);

export const AuditEntrySchema = Type.Object({
  id: Type.Integer(),
  actor: Type.String(),
  action: Type.String(),
  data: Type.Record(Type.String(), Type.Unknown()),
  ip: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
});

const ChainLinkSchema = Type.Union([
  Type.Object({ id: Type.Integer(), hash: Type.String() }),
  Type.Null(),
]);

/** The outcome of walking the audit log's hash chain over a period (`verify=true`). */
export const ChainVerificationSchema = Type.Object({
  valid: Type.Boolean({
    description: 'Every entry of the period matches its hash and links to the one before.',
  }),
  from: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  to: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  entries_checked: Type.Integer({
    description: "Entries walked: the chain is one for the service, every account's entries.",
  }),
  first_broken: Type.Union([
    Type.Object({
      id: Type.Integer(),
      created_at: Type.String({ format: 'date-time' }),
      reason: Type.Union([Type.Literal('hash'), Type.Literal('link')], {
        description:
          '`hash`: the entry was altered; `link`: an entry before it was removed or inserted.',
      }),
    }),
    Type.Null(),
  ]),
  anchor: ChainLinkSchema,
  head: ChainLinkSchema,
});

export const PasswordChangeSchema = Type.Object(
  {
    current_password: Type.String({ minLength: 1, maxLength: 256 }),
    new_password: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'At least 12 characters, not the e-mail address, not the current password.',
    }),
  },
  { additionalProperties: false },
);

/** The support an account's plan sells (docs/support.md). */
export const SupportSchema = Type.Object({
  channel: Type.String({
    description: 'community, e-mail, priority e-mail or dedicated account manager.',
  }),
  response_target: Type.Union([Type.String(), Type.Null()], {
    description: 'How soon support answers; null on Free (community support).',
  }),
  community_url: Type.Optional(Type.String({ description: 'Free: where to ask.' })),
  account_manager: Type.Optional(
    Type.Object({ name: Type.Union([Type.String(), Type.Null()]), email: Type.String() }),
  ),
});
