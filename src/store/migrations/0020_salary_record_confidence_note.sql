-- The evidence behind each salary record's confidence, in a few words (release format field
-- confidence_note). Records of releases loaded before it have none.
ALTER TABLE salary_records ADD COLUMN confidence_note text NOT NULL DEFAULT '';
