-- Every loaded release is kept and queryable by version; the active one is the newest loaded
-- that is not retired. Retiring a release drops its records and keeps its row (its version, dates
-- and header) so that it is named as retired rather than unknown.
ALTER TABLE data_releases ADD COLUMN retired_at timestamptz;
