/**
 * Examples in the API reference: the webhook endpoint of the account of the accounts feature's
 * examples, created on 4 November 2026, and a `data.updated` delivered to it, as the server
 * answered.
 */

/** GET and PATCH /api/v1/webhooks/{id}: the endpoint after its secret was rotated. */
export const WEBHOOK_EXAMPLE = {
  id: 'wh_UdIoqAQk08AVbDDz',
  url: 'https://hooks.example.com/salary',
  events: ['data.updated'],
  status: 'enabled',
  disabled_reason: null,
  failing_since: null,
  created_at: '2026-11-04T11:20:33.000Z',
  updated_at: '2026-11-22T10:15:00.000Z',
};

/** POST /api/v1/webhooks: the signing secret is in this answer only. */
export const NEW_WEBHOOK_EXAMPLE = {
  ...WEBHOOK_EXAMPLE,
  updated_at: WEBHOOK_EXAMPLE.created_at,
  secret: 'whsec_Ppt9gQy/qohHHy+qANNpI9QKF3Obsk89lpIH1rSgWn0=',
};

/** GET /api/v1/webhooks */
export const WEBHOOK_LIST_EXAMPLE = { data: [WEBHOOK_EXAMPLE] };

/** POST /api/v1/webhooks/{id}/rotate-secret: the old secret still signs for 24 hours. */
export const ROTATED_WEBHOOK_EXAMPLE = {
  ...WEBHOOK_EXAMPLE,
  secret: 'whsec_+LeQBdLec/SL3hll6sKDq811VC5e74in5OFCOlavyk0=',
  previous_secret_expires_at: '2026-11-23T10:15:00.000Z',
};

/** POST /api/v1/webhooks/{id}/test */
export const WEBHOOK_TEST_EXAMPLE = { ok: true, status_code: 204, duration_ms: 164, error: null };

/** A delivery that succeeded at the first attempt. */
export const DELIVERY_EXAMPLE = {
  id: 'dlv_25a25ce69a2b4ce9a304f256da4299bc',
  event_id: 'evt_me0NekGmvwn3McKQ',
  event_type: 'data.updated',
  status: 'succeeded',
  attempts: 1,
  next_attempt_at: null,
  last_status_code: 204,
  last_error: null,
  created_at: '2026-11-20T06:00:12.000Z',
  completed_at: '2026-11-20T06:00:12.391Z',
  attempt_log: [
    {
      attempt: 1,
      started_at: '2026-11-20T06:00:12.208Z',
      duration_ms: 183,
      status_code: 204,
      ok: true,
      error: null,
    },
  ],
};

/** GET /api/v1/webhooks/{id}/deliveries */
export const DELIVERY_LIST_EXAMPLE = { data: [DELIVERY_EXAMPLE] };

/** POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver: a new delivery, queued. */
export const REDELIVERY_EXAMPLE = {
  ...DELIVERY_EXAMPLE,
  id: 'dlv_zy6n9TtyRWPtHzOc',
  status: 'pending',
  attempts: 0,
  next_attempt_at: '2026-11-22T10:15:00.000Z',
  last_status_code: null,
  created_at: '2026-11-22T10:15:00.000Z',
  completed_at: null,
  attempt_log: [],
};
