-- Data releases and their salary records. A release is loaded in one transaction; the active
-- release is the most recently loaded one.
CREATE TABLE data_releases (
  id bigserial PRIMARY KEY,
  version text NOT NULL UNIQUE,
  format text NOT NULL,
  created_at timestamptz NOT NULL,
  loaded_at timestamptz NOT NULL,
  first_year integer NOT NULL,
  current_year integer NOT NULL,
  last_published_year integer NOT NULL,
  record_count integer NOT NULL,
  checksum text NOT NULL,
  header jsonb NOT NULL
);

CREATE TABLE salary_records (
  release_id bigint NOT NULL REFERENCES data_releases (id) ON DELETE CASCADE,
  country char(2) NOT NULL,
  job text NOT NULL,
  level text NOT NULL,
  year integer NOT NULL,
  basis text NOT NULL,
  confidence text NOT NULL,
  p10 integer NOT NULL,
  p25 integer NOT NULL,
  median integer NOT NULL,
  p75 integer NOT NULL,
  p90 integer NOT NULL,
  mean integer NOT NULL,
  local_currency char(3) NOT NULL,
  fx_rate double precision NOT NULL,
  PRIMARY KEY (release_id, country, job, level, year)
);

-- Events (the outbox of data.updated and later kinds); delivery state comes with webhooks.
CREATE TABLE events (
  id text PRIMARY KEY,
  type text NOT NULL,
  created_at timestamptz NOT NULL,
  data jsonb NOT NULL
);

CREATE INDEX events_type_created_at ON events (type, created_at);
