/**
 * Examples in the API reference: the scheduled export of the account of the accounts feature's
 * examples (Germany's current year as CSV, to the account's SFTP server on the 1st of every month
 * at 06:00 Berlin time), created on 6 November 2026 and run by hand on 22 November.
 */

/** GET /api/v1/exports/{id} and POST /api/v1/exports. */
export const EXPORT_EXAMPLE = {
  id: 'exp_hNQQ4CDmOsT2N8NN',
  name: 'Monthly DE archive',
  schedule: '0 6 1 * *',
  timezone: 'Europe/Berlin',
  query: { kind: 'country', years: 'current', country: 'DE' },
  format: 'csv',
  compression: 'gzip',
  destination: {
    type: 'sftp',
    host: 'sftp.example.com',
    port: 22,
    username: 'salary-export',
    auth: 'private_key',
    host_key_sha256: 'SHA256:xYJcMoV73rhd95rDG4sLF1Z4p8sHczDcSIt+DfTwybk',
    path: '/upload/salary',
  },
  next_run_at: '2026-12-01T05:00:00.000Z',
  created_at: '2026-11-06T13:45:20.000Z',
  updated_at: '2026-11-06T13:45:20.000Z',
};

/** GET /api/v1/exports */
export const EXPORT_LIST_EXAMPLE = { data: [EXPORT_EXAMPLE] };

/** PATCH /api/v1/exports/{id}: the format changed to Parquet. */
export const CHANGED_EXPORT_EXAMPLE = {
  ...EXPORT_EXAMPLE,
  format: 'parquet',
  updated_at: '2026-11-22T10:15:00.000Z',
};

/** POST /api/v1/exports/test-destination: the server was reached and a test file written. */
export const DESTINATION_TEST_EXAMPLE = { ok: true, error: null };

/** POST /api/v1/exports/{id}/run: the run, queued. */
export const QUEUED_RUN_EXAMPLE = {
  id: 'run_1gtTkQLkS5t5n6MU',
  export_id: 'exp_hNQQ4CDmOsT2N8NN',
  trigger: 'manual',
  status: 'queued',
  scheduled_at: '2026-11-22T10:15:00.000Z',
  started_at: null,
  finished_at: null,
  next_attempt_at: '2026-11-22T10:15:00.000Z',
  rows: null,
  bytes: null,
  sha256: null,
  file_name: null,
  attempts: 0,
  error: null,
};

/** GET /api/v1/exports/runs/{run_id}: the same run, delivered. */
export const RUN_EXAMPLE = {
  ...QUEUED_RUN_EXAMPLE,
  status: 'succeeded',
  started_at: '2026-11-22T10:15:01.204Z',
  finished_at: '2026-11-22T10:15:03.871Z',
  next_attempt_at: null,
  rows: 84,
  bytes: 822,
  sha256: 'c604937cf8df25af0501c08e194a45e16731a95aac8e235288f31097bfd74d0f',
  file_name: '/upload/salary/Monthly-DE-archive-2026-11-22.csv.gz',
  attempts: 1,
};

/** GET /api/v1/exports/{id}/runs */
export const RUN_LIST_EXAMPLE = { data: [RUN_EXAMPLE] };
