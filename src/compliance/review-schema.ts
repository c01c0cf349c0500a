import { Type, type Static } from '@sinclair/typebox';
import { ChainVerificationSchema } from '../accounts/index.js';
import { ACCESS_REVIEW_EXAMPLE } from './examples.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) =>
  Type.Union([schema, Type.Null()]);
const Time = Type.String({ format: 'date-time' });
const Strings = Type.Array(Type.String());

export const ReviewedKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String(),
  scopes: Type.Union([Strings, Type.Null()], {
    description: 'null: every scope (plans without scoped keys).',
  }),
  allowlist: Strings,
  status: Type.Union(
    ['active', 'rotating', 'expired', 'revoked'].map((s) => Type.Literal(s)),
    { description: '`rotating`: replaced by a rotation, still working until `expires_at`.' },
  ),
  created_at: Time,
  age_days: Type.Integer(),
  last_used_at: Nullable(Time),
  rotated_from: Nullable(Type.String({ description: 'The key this one replaced by rotation.' })),
  replaced_by: Nullable(Type.String({ description: 'The key that replaced this one.' })),
  expires_at: Nullable(Time),
  revoked_at: Nullable(Time),
});

export const ReviewedClientSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  auth_method: Type.String(),
  scopes: Strings,
  allowlist: Strings,
  status: Type.Union([Type.Literal('active'), Type.Literal('deleted')]),
  created_at: Time,
  age_days: Type.Integer(),
  last_used_at: Nullable(
    Type.String({ format: 'date-time', description: 'The last UTC hour a token was used.' }),
  ),
  secret_rotated_at: Nullable(Time),
  secret_age_days: Type.Union([Type.Integer(), Type.Null()], {
    description: 'null for private_key_jwt (no shared secret).',
  }),
  deleted_at: Nullable(Time),
});

export const ReviewedSessionSchema = Type.Object({
  id: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('revoked')]),
  created_at: Time,
  expires_at: Time,
  revoked_at: Nullable(Time),
});

export const AccessReviewSchema = Type.Object(
  {
    id: Type.String(),
    generated_at: Time,
    generated_by: Type.String({ description: 'The credential that asked: `key:…`, `account:…`.' }),
    period: Type.Object({ from: Time, to: Time }),
    account: Type.Object({
      id: Type.String(),
      email: Type.String(),
      plan: Type.String(),
      status: Type.String(),
      created_at: Time,
      allowlist: Strings,
    }),
    api_keys: Type.Array(ReviewedKeySchema),
    oauth_clients: Type.Array(ReviewedClientSchema),
    sessions: Type.Array(ReviewedSessionSchema),
    webhook_endpoints: Type.Array(
      Type.Object({
        id: Type.String(),
        url: Type.String(),
        events: Strings,
        enabled: Type.Boolean(),
        created_at: Time,
      }),
    ),
    export_destinations: Type.Array(
      Type.Object({
        export_id: Type.String(),
        name: Type.String(),
        type: Type.String(),
        host: Nullable(Type.String()),
        port: Type.Union([Type.Integer(), Type.Null()]),
        username: Nullable(Type.String()),
        path: Nullable(Type.String()),
        created_at: Time,
      }),
    ),
    audit_log: Type.Object({
      entries_in_period: Type.Integer({ description: "This account's entries in the period." }),
      actions: Type.Record(Type.String(), Type.Integer()),
      verification: ChainVerificationSchema,
    }),
  },
  { $id: 'AccessReview', additionalProperties: false, examples: [ACCESS_REVIEW_EXAMPLE] },
);

export type AccessReview = Static<typeof AccessReviewSchema>;
export type ReviewedKey = Static<typeof ReviewedKeySchema>;
export type ReviewedClient = Static<typeof ReviewedClientSchema>;
