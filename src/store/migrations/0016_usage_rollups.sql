-- Usage summed per UTC day (every column kept) and per UTC hour and one column (key, endpoint or
-- status), so a report over 30 or 93 days reads tens of rows a day instead of every hourly row.
-- Written by the same statement as usage_hourly (src/usage/repo.ts, addUsage), so each holds
-- exactly the sums of usage_hourly.
CREATE TABLE usage_daily (
  account_id text NOT NULL,
  -- The UTC midnight starting the day.
  day timestamptz NOT NULL,
  key_id text NOT NULL,
  endpoint text NOT NULL,
  status integer NOT NULL,
  count bigint NOT NULL,
  PRIMARY KEY (account_id, day, key_id, endpoint, status)
);

CREATE TABLE usage_hourly_by_column (
  account_id text NOT NULL,
  -- 'key_id', 'endpoint' or 'status': the usage_hourly column summed by.
  column_name text NOT NULL,
  hour timestamptz NOT NULL,
  -- That column's value (a status as its decimal text).
  value text NOT NULL,
  count bigint NOT NULL,
  PRIMARY KEY (account_id, column_name, hour, value)
);

-- Writers wait until the sums of the rows already written are in place.
LOCK TABLE usage_hourly IN SHARE MODE;

INSERT INTO usage_daily (account_id, day, key_id, endpoint, status, count)
SELECT account_id, date_trunc('day', hour, 'UTC'), key_id, endpoint, status, sum(count)
FROM usage_hourly
GROUP BY 1, 2, 3, 4, 5;

INSERT INTO usage_hourly_by_column (account_id, column_name, hour, value, count)
SELECT account_id, 'key_id', hour, key_id, sum(count) FROM usage_hourly GROUP BY 1, 3, 4
UNION ALL
SELECT account_id, 'endpoint', hour, endpoint, sum(count) FROM usage_hourly GROUP BY 1, 3, 4
UNION ALL
SELECT account_id, 'status', hour, status::text, sum(count) FROM usage_hourly GROUP BY 1, 3, 4;
