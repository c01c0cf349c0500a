-- Test-mode API keys (`sk_test_…`): the same data as live keys, outside quota, usage and the SLA,
-- under their own rate limit (docs/test-mode.md). The mode is fixed when the key is created.
ALTER TABLE api_keys ADD COLUMN mode text NOT NULL DEFAULT 'live' CHECK (mode IN ('live', 'test'));
