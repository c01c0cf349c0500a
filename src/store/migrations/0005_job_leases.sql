-- Periodic background jobs (billing runs, month close) claimed through the database, so that
-- of several equal instances exactly one runs each job at a time, and a scheduled job runs
-- once per interval in total. A lease left by a crashed instance expires at locked_until.
CREATE TABLE job_leases (
  name text PRIMARY KEY,
  holder text,
  locked_until timestamptz,
  next_run_at timestamptz NOT NULL,
  last_finished_at timestamptz
);
