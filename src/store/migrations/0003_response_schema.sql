-- Enterprise custom response schemas: which fields appear in salary responses, and their names.
ALTER TABLE accounts ADD COLUMN response_schema jsonb;
